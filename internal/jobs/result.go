package jobs

import (
	"context"
	"fmt"
	"strconv"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/rating"
	"github.com/broadside/broadside/internal/store"
)

// recordResult writes a played match: its result rows and, when ranked,
// its ratings. The caller completes the job in the same transaction.
// store.ErrMatchDone means another attempt recorded it already.
func recordResult(ctx context.Context, st *store.Store, p *played) error {
	results, err := seatResults(p.match, p.summary)
	if err != nil {
		return err
	}
	sumJSON, err := summaryJSON(p.summary)
	if err != nil {
		return err
	}
	err = st.MatchFinish(ctx, store.MatchFinishParams{
		ID: p.match.ID, Rounds: p.summary.Rounds, ReplayKey: p.replay, Summary: sumJSON, Players: results,
	})
	if err != nil {
		return err
	}
	if !p.match.Ranked {
		return nil
	}
	return rate(ctx, st, p.match, results)
}

// seatKey is the key a rule set gives a seat when the bot brings none:
// Entelect's A and B, the others' seat number.
func seatKey(gameName string, seat int) string {
	if gameName == "entelect" {
		return string(rune('A' + seat))
	}
	return strconv.Itoa(seat)
}

// seatResults maps the summary's players (in finishing order for some
// rule sets) back to the match's seats by key.
func seatResults(m *store.MatchRow, sum *game.Summary) ([]store.MatchPlayerResult, error) {
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
		p, ok := byKey[seatKey(m.Game, seat.Seat)]
		if !ok {
			return nil, fmt.Errorf("match %d: no result for seat %d (key %s)", m.ID, seat.Seat, seatKey(m.Game, seat.Seat))
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
		}
	}
	return out, nil
}

// rate applies Glicko-2 to a ranked match on its game's ladder.
func rate(ctx context.Context, st *store.Store, m *store.MatchRow, results []store.MatchPlayerResult) error {
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
