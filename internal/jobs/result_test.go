package jobs

import (
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
)

// TestSeatResultsFault: a seat that lost by its own failure carries the
// fault the ladder counts; the winner and a loser in play carry none.
func TestSeatResultsFault(t *testing.T) {
	m := &store.MatchRow{ID: 1, Players: []store.MatchPlayerRow{{Seat: 0}, {Seat: 1}, {Seat: 2}}}
	winner := "0"
	sum := &game.Summary{Winner: &winner, Players: []game.PlayerSummary{
		{Key: "0", Rank: 1},
		{Key: "1", Rank: 2, Reason: "crashed (exit code 1)"},
		{Key: "2", Rank: 3, Reason: "sunk by 0"},
	}}
	got, err := seatResults(m, sum, game.Traits{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", store.FaultCrash, ""} {
		if got[i].Fault != want {
			t.Errorf("seat %d (%s, %q): fault %q, want %q", i, got[i].Outcome, got[i].Reason, got[i].Fault, want)
		}
	}
}
