package competition

import (
	"context"
	"slices"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
)

// Paired ranked games. A ranked two-player match comes as a pair: two
// matches with the same seed and the seats swapped, so whatever a seed
// deals the seats (who shoots first, the first player's edge in a complete
// tie) goes once to each bot, and a rule set's draws, taken in seat order
// from the seed, come out mirrored. The pair is one rating period: its
// ratings move once, from both results, when the later half finishes. A
// pair with a half that failed or was canceled is not rated.

// RateFinished rates a ranked match just recorded in the transaction of
// st: alone, or, for a half of a pair, together with the other half once
// both have finished. halves are the pair's halves as MatchPairLock
// returned them before the match was recorded (nil for a match alone).
func RateFinished(ctx context.Context, st *store.Store, m *store.MatchRow, results []store.MatchPlayerResult,
	halves []store.PairHalf, traits game.Traits) error {
	if !m.Ranked {
		return nil
	}
	this := store.RatedGame{MatchID: m.ID, Players: make([]store.RatedPlayer, len(m.Players))}
	for i, p := range m.Players {
		this.Players[i] = store.RatedPlayer{BotID: p.BotID, Rank: results[i].Rank, Outcome: results[i].Outcome}
	}
	games := []store.RatedGame{this}
	if m.PairID != nil {
		for _, h := range halves {
			if h.MatchID == m.ID {
				continue
			}
			if h.Status != store.MatchFinished {
				// The other half is still to play, and rates the pair when
				// it finishes; or it failed, and the pair is not rated.
				return nil
			}
			games = append(games, store.RatedGame{MatchID: h.MatchID, Players: h.Players})
		}
		slices.SortFunc(games, func(a, b store.RatedGame) int { return int(a.MatchID - b.MatchID) })
	}
	return RatePeriod(ctx, st, m.ID, m.Game, RatingMethod(traits), games)
}
