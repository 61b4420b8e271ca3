package jobs

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/rating"
	"github.com/broadside/broadside/internal/store"
)

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
func RecomputeRatings(ctx context.Context, pool *pgxpool.Pool, write bool) (*RecomputeReport, error) {
	rep := &RecomputeReport{}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if write {
			if _, err := tx.Exec(ctx, `LOCK TABLE ratings IN EXCLUSIVE MODE`); err != nil {
				return err
			}
		}
		st := store.NewTx(tx)
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
