package competition

import (
	"testing"

	"github.com/broadside/broadside/internal/rating"
	"github.com/broadside/broadside/internal/store"
)

// TestPeriodChanges checks who a rating period changes: every seat of a
// match between different bots, nobody when one bot holds two seats.
func TestPeriodChanges(t *testing.T) {
	start := store.RatingState{Rating: 1500, Deviation: 350, Volatility: 0.06}
	before := map[int64]store.RatingState{1: start, 2: start, 3: start}
	game := func(id int64, seats ...store.RatedPlayer) store.RatedGame {
		return store.RatedGame{MatchID: id, Players: seats}
	}
	win := func(bot int64) store.RatedPlayer { return store.RatedPlayer{BotID: bot, Rank: 1, Outcome: "win"} }
	loss := func(bot int64, rank int) store.RatedPlayer {
		return store.RatedPlayer{BotID: bot, Rank: rank, Outcome: "loss"}
	}
	tests := []struct {
		name    string
		method  rating.Method
		games   []store.RatedGame
		changed []int64 // bots whose rating rises, then falls
	}{
		{"a match", rating.Glicko2, []store.RatedGame{game(1, win(1), loss(2, 2))}, []int64{1, 2}},
		{"a pair with swapped seats", rating.Glicko2, []store.RatedGame{game(1, win(1), loss(2, 2)), game(2, loss(2, 2), win(1))}, []int64{1, 2}},
		{"a free-for-all", rating.WengLin, []store.RatedGame{game(1, loss(3, 3), win(1), loss(2, 2))}, []int64{3, 1, 2}},
		{"one bot in both seats", rating.Glicko2, []store.RatedGame{game(1, win(1), loss(1, 2))}, nil},
		{"one bot twice in a free-for-all", rating.WengLin, []store.RatedGame{game(1, win(1), loss(2, 2), loss(1, 3))}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changes, err := PeriodChanges(tt.method, tt.games, before)
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) != len(tt.changed) {
				t.Fatalf("%d changes, want %d: %+v", len(changes), len(tt.changed), changes)
			}
			for i, c := range changes {
				if c.BotID != tt.changed[i] || c.After == c.Before {
					t.Errorf("change %d: %+v, want bot %d's rating moved", i, c, tt.changed[i])
				}
			}
			if len(changes) > 0 {
				up, down := changes[0], changes[len(changes)-1]
				if tt.method == rating.Glicko2 && (up.After.Rating <= start.Rating || down.After.Rating >= start.Rating) {
					t.Errorf("the winner %+v and the loser %+v moved the wrong way", up.After, down.After)
				}
			}
		})
	}
}
