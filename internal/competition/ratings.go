package competition

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/rating"
	"github.com/broadside/broadside/internal/store"
)

// RatingMethod is how a game's ladder is rated: Weng–Lin for a
// free-for-all, Glicko-2 for two players.
func RatingMethod(traits game.Traits) rating.Method {
	if traits.FreeForAll {
		return rating.WengLin
	}
	return rating.Glicko2
}

// RatePeriod rates one rating period on a ladder (a ranked match, or both
// halves of a pair, in match order) and records it on matchID, the match
// that closed it. The bots' ratings are locked first, in bot order.
func RatePeriod(ctx context.Context, st *store.Store, matchID int64, ladder string, method rating.Method, games []store.RatedGame) error {
	if len(games) == 0 {
		return fmt.Errorf("rate match %d: no games", matchID)
	}
	ids := make([]int64, len(games[0].Players))
	for i, p := range games[0].Players {
		ids[i] = p.BotID
	}
	def := rating.Default()
	before, err := st.RatingsLock(ctx, ladder, ids,
		store.RatingState{Rating: def.Rating, Deviation: def.Deviation, Volatility: def.Volatility})
	if err != nil {
		return err
	}
	changes, err := PeriodChanges(method, games, before)
	if err != nil {
		return fmt.Errorf("rate match %d: %w", matchID, err)
	}
	if len(changes) == 0 {
		return nil
	}
	return st.RatingApply(ctx, matchID, ladder, string(method), changes)
}

// PeriodChanges computes one rating period's changes from the players'
// ratings before it: the single rule both the worker and the
// recomputation use, so they agree to the last bit. The players are the
// first game's seats, in seat order; every game must seat the same bots.
// A bot seated more than once (an organiser's test, a self-challenge made
// ranked) has no opponent to be rated against: nothing changes, and the
// match is recorded unrated rather than refused on every retry.
func PeriodChanges(method rating.Method, games []store.RatedGame, before map[int64]store.RatingState) ([]store.RatingChange, error) {
	if len(games) == 0 {
		return nil, errors.New("no games")
	}
	first := games[0].Players
	seen := make(map[int64]bool, len(first))
	for _, p := range first {
		if seen[p.BotID] {
			return nil, nil
		}
		seen[p.BotID] = true
	}
	index := make(map[int64]int, len(first))
	players := make([]rating.Rating, len(first))
	for i, p := range first {
		index[p.BotID] = i
		b := before[p.BotID]
		players[i] = rating.Rating{Rating: b.Rating, Deviation: b.Deviation, Volatility: b.Volatility}
	}
	ranks := make([][]int, len(games))
	outcomes := make([][]string, len(first))
	for g, gm := range games {
		if len(gm.Players) != len(first) {
			return nil, fmt.Errorf("match %d seats %d bots, match %d %d", gm.MatchID, len(gm.Players), games[0].MatchID, len(first))
		}
		ranks[g] = make([]int, len(first))
		for _, p := range gm.Players {
			i, ok := index[p.BotID]
			if !ok {
				return nil, fmt.Errorf("bot %d of match %d is not in match %d", p.BotID, gm.MatchID, games[0].MatchID)
			}
			ranks[g][i] = p.Rank
			outcomes[i] = append(outcomes[i], p.Outcome)
		}
	}
	after, err := rating.Period(method, players, ranks)
	if err != nil {
		return nil, err
	}
	out := make([]store.RatingChange, len(first))
	for i, p := range first {
		out[i] = store.RatingChange{
			BotID: p.BotID, Before: before[p.BotID], Outcomes: outcomes[i],
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
// transaction that locks the ratings table against finishing matches;
// without, it reads one consistent snapshot and changes nothing.
func RecomputeRatings(ctx context.Context, s *store.Store, write bool) (*RecomputeReport, error) {
	rep := &RecomputeReport{}
	run := func(st *store.Store) error {
		if write {
			if err := st.RatingsLockTable(ctx); err != nil {
				return err
			}
		}
		h, err := replayRatings(ctx, st)
		if err != nil {
			return err
		}
		rep.Matches, rep.Bots = h.matches, len(h.order)
		rep.Differences, err = compareRatings(ctx, st, h, write)
		if err != nil {
			return err
		}
		rep.Written = write && len(rep.Differences) > 0
		return nil
	}
	var err error
	if write {
		err = s.InTx(ctx, func(_ pgx.Tx, st *store.Store) error { return run(st) })
	} else {
		// A check writes nothing and locks nothing: it reads one snapshot.
		err = s.InSnapshot(ctx, run)
	}
	if err != nil {
		return nil, fmt.Errorf("recompute ratings: %w", err)
	}
	return rep, nil
}

// ratingHistory is every bot's rating as the rated matches give it.
type ratingHistory struct {
	state map[ladderBot]store.RatingState
	// order lists the bots in the order they first played.
	order   []ladderBot
	matches int
}

// replayRatings replays every rated match, from the default rating, with
// the worker's own rule (PeriodChanges).
func replayRatings(ctx context.Context, st *store.Store) (*ratingHistory, error) {
	h := &ratingHistory{state: map[ladderBot]store.RatingState{}}
	def := rating.Default()
	err := st.RatedMatchHistory(ctx, func(m store.RatedMatch) error {
		h.matches += len(m.Games)
		before := make(map[int64]store.RatingState, len(m.Games[0].Players))
		for _, p := range m.Games[0].Players {
			k := ladderBot{m.Ladder, p.BotID}
			s, ok := h.state[k]
			if !ok {
				s = store.RatingState{BotID: p.BotID, Ladder: m.Ladder, Rating: def.Rating, Deviation: def.Deviation, Volatility: def.Volatility}
				h.order = append(h.order, k)
			}
			before[p.BotID] = s
		}
		changes, err := PeriodChanges(rating.Method(m.Method), m.Games, before)
		if err != nil {
			return fmt.Errorf("match %d: %w", m.MatchID, err)
		}
		for _, c := range changes {
			s := before[c.BotID]
			s.Rating, s.Deviation, s.Volatility = c.After.Rating, c.After.Deviation, c.After.Volatility
			s.Count(c.Outcomes)
			h.state[ladderBot{m.Ladder, c.BotID}] = s
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// compareRatings lists the bots whose stored rating or record differs from
// what history gives; with write, the recomputed values replace them.
func compareRatings(ctx context.Context, st *store.Store, h *ratingHistory, write bool) ([]RatingDifference, error) {
	stored, err := st.RatingListAll(ctx)
	if err != nil {
		return nil, err
	}
	storedBy := make(map[ladderBot]store.RatingState, len(stored))
	for _, s := range stored {
		storedBy[ladderBot{s.Ladder, s.BotID}] = s
	}
	var diffs []RatingDifference
	for _, k := range h.order {
		re, old := h.state[k], storedBy[k]
		if re.Rating != old.Rating || re.Deviation != old.Deviation || re.Volatility != old.Volatility ||
			re.Games != old.Games || re.Wins != old.Wins || re.Losses != old.Losses || re.Draws != old.Draws {
			diffs = append(diffs, RatingDifference{Stored: old, Recomputed: re})
			if write {
				if err := st.RatingReplace(ctx, re); err != nil {
					return nil, err
				}
			}
		}
	}
	return diffs, nil
}
