package competition

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/rating"
	"github.com/broadside/broadside/internal/store"
)

// RateMatch applies Glicko-2 to a ranked match on its game's ladder.
func RateMatch(ctx context.Context, st *store.Store, m *store.MatchRow, results []store.MatchPlayerResult) error {
	ids := make([]int64, len(m.Players))
	for i, p := range m.Players {
		ids[i] = p.BotID
	}
	def := rating.Default()
	before, err := st.RatingsLock(ctx, m.Game, ids,
		store.RatingState{Rating: def.Rating, Deviation: def.Deviation, Volatility: def.Volatility})
	if err != nil {
		return err
	}
	changes, err := RatingChanges(ids, results, before)
	if err != nil {
		return fmt.Errorf("rate match %d: %w", m.ID, err)
	}
	return st.RatingApply(ctx, m.ID, m.Game, changes)
}

// RatingChanges computes one match's rating changes from the players'
// ratings before it: the single rule both the worker and the
// recomputation use, so they agree to the last bit.
func RatingChanges(botIDs []int64, results []store.MatchPlayerResult, before map[int64]store.RatingState) ([]store.RatingChange, error) {
	players := make([]rating.Player, len(botIDs))
	for i, id := range botIDs {
		b := before[id]
		players[i] = rating.Player{Before: rating.Rating{Rating: b.Rating, Deviation: b.Deviation, Volatility: b.Volatility}, Rank: results[i].Rank}
	}
	after, err := rating.Match(players)
	if err != nil {
		return nil, err
	}
	out := make([]store.RatingChange, len(botIDs))
	for i, id := range botIDs {
		out[i] = store.RatingChange{
			BotID: id, Before: before[id], Outcome: results[i].Outcome,
			After: store.RatingState{Rating: after[i].Rating, Deviation: after[i].Deviation, Volatility: after[i].Volatility},
		}
	}
	return out, nil
}

// RecomputeReport says how the ratings rebuilt from history compare with
// the stored ones.
type RecomputeReport struct {
	Matches int
	Bots    int
	// Differences lists the bots whose stored rating or record differs.
	Differences []RatingDifference
	Written     bool
}

// RatingDifference is one bot whose stored rating is not what history gives.
type RatingDifference struct {
	Stored, Recomputed store.RatingState
}

type ladderBot struct {
	ladder string
	bot    int64
}

// RecomputeRatings replays every rated match in the order its ratings were
// applied, from the default rating, with the worker's own rule
// (RatingChanges), and compares the result with the stored ratings. With
// write set, the recomputed values replace the stored ones, in one
// transaction that locks the ratings table against finishing matches.
func RecomputeRatings(ctx context.Context, s *store.Store, write bool) (*RecomputeReport, error) {
	rep := &RecomputeReport{}
	err := s.InTx(ctx, func(_ pgx.Tx, st *store.Store) error {
		if write {
			if err := st.RatingsLockTable(ctx); err != nil {
				return err
			}
		}
		state := map[ladderBot]store.RatingState{}
		var order []ladderBot
		def := rating.Default()
		err := st.RatedMatchHistory(ctx, func(m store.RatedMatch) error {
			rep.Matches++
			ids := make([]int64, len(m.Players))
			results := make([]store.MatchPlayerResult, len(m.Players))
			before := make(map[int64]store.RatingState, len(m.Players))
			for i, p := range m.Players {
				ids[i] = p.BotID
				results[i] = store.MatchPlayerResult{Rank: p.Rank, Outcome: p.Outcome}
				k := ladderBot{m.Ladder, p.BotID}
				s, ok := state[k]
				if !ok {
					s = store.RatingState{BotID: p.BotID, Ladder: m.Ladder, Rating: def.Rating, Deviation: def.Deviation, Volatility: def.Volatility}
					order = append(order, k)
				}
				before[p.BotID] = s
			}
			changes, err := RatingChanges(ids, results, before)
			if err != nil {
				return fmt.Errorf("match %d: %w", m.MatchID, err)
			}
			for _, c := range changes {
				k := ladderBot{m.Ladder, c.BotID}
				s := state[k]
				if s.BotID == 0 {
					s = before[c.BotID]
				}
				s.Rating, s.Deviation, s.Volatility = c.After.Rating, c.After.Deviation, c.After.Volatility
				s.Games++
				switch c.Outcome {
				case "win":
					s.Wins++
				case "loss":
					s.Losses++
				case "draw":
					s.Draws++
				}
				state[k] = s
			}
			return nil
		})
		if err != nil {
			return err
		}
		stored, err := st.RatingListAll(ctx)
		if err != nil {
			return err
		}
		storedBy := make(map[ladderBot]store.RatingState, len(stored))
		for _, s := range stored {
			storedBy[ladderBot{s.Ladder, s.BotID}] = s
		}
		rep.Bots = len(order)
		for _, k := range order {
			re, old := state[k], storedBy[k]
			if re.Rating != old.Rating || re.Deviation != old.Deviation || re.Volatility != old.Volatility ||
				re.Games != old.Games || re.Wins != old.Wins || re.Losses != old.Losses || re.Draws != old.Draws {
				rep.Differences = append(rep.Differences, RatingDifference{Stored: old, Recomputed: re})
				if write {
					if err := st.RatingReplace(ctx, re); err != nil {
						return err
					}
				}
			}
		}
		rep.Written = write && len(rep.Differences) > 0
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recompute ratings: %w", err)
	}
	return rep, nil
}
