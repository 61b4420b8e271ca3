package jobs

import (
	"context"
	"fmt"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
)

// recordResult writes a played match: its result rows and, when ranked,
// its ratings (for a half of a pair, once both halves are in). The caller completes the job in the same transaction.
// store.ErrMatchDone means another attempt recorded it already.
// pauseAfter bounds a bot's ranked matches in a row lost by a fault
// before it leaves the ladder (0: never).
func recordResult(ctx context.Context, st *store.Store, p *played, pauseAfter int) error {
	results, err := seatResults(p.match, p.summary, p.traits)
	if err != nil {
		return err
	}
	sumJSON, err := summaryJSON(p.summary)
	if err != nil {
		return err
	}
	var halves []store.PairHalf
	if p.match.PairID != nil {
		// Both halves of a pair are locked before either is recorded, so
		// two finishing at once are recorded one after the other and the
		// later one rates the pair.
		if halves, err = st.MatchPairLock(ctx, *p.match.PairID); err != nil {
			return err
		}
	}
	err = st.MatchFinish(ctx, store.MatchFinishParams{
		ID: p.match.ID, Rounds: p.summary.Rounds, ReplayKey: p.replay, Summary: sumJSON, Players: results,
		StopAfter: pauseAfter,
	})
	if err != nil {
		return err
	}
	return competition.RateFinished(ctx, st, p.match, results, halves, p.traits)
}

// seatResults maps the summary's players (in finishing order for some
// rule sets) back to the match's seats by the keys the rule set gives them.
func seatResults(m *store.MatchRow, sum *game.Summary, traits game.Traits) ([]store.MatchPlayerResult, error) {
	if len(sum.Players) != len(m.Players) {
		return nil, fmt.Errorf("match %d: summary has %d players for %d seats", m.ID, len(sum.Players), len(m.Players))
	}
	byKey := make(map[string]game.PlayerSummary, len(sum.Players))
	for _, p := range sum.Players {
		if p.Rank < 1 {
			// A rule set that ranks nobody: the winner first, all others
			// second; no winner is a draw.
			p.Rank = 2
			if sum.Winner == nil || *sum.Winner == p.Key {
				p.Rank = 1
			}
		}
		byKey[p.Key] = p
	}
	winners := 0
	for _, p := range byKey {
		if p.Rank == 1 {
			winners++
		}
	}
	out := make([]store.MatchPlayerResult, len(m.Players))
	for i, seat := range m.Players {
		p, ok := byKey[traits.Key(seat.Seat)]
		if !ok {
			return nil, fmt.Errorf("match %d: no result for seat %d (key %s)", m.ID, seat.Seat, traits.Key(seat.Seat))
		}
		outcome := "loss"
		switch {
		case p.Rank == 1 && winners == 1:
			outcome = "win"
		case p.Rank == 1:
			outcome = "draw"
		}
		out[i] = store.MatchPlayerResult{
			Seat: seat.Seat, Key: p.Key, Points: p.Points, ShipsLeft: p.ShipsLeft, ShotsFired: p.ShotsFired,
			ShotsLanded: p.ShotsLanded, Killed: p.Killed, Outcome: outcome, Rank: p.Rank, Reason: p.Reason, Log: p.Log,
			Fault: store.FaultOf(outcome, p.Reason),
		}
	}
	return out, nil
}
