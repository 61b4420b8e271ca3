package jobs

import (
	"reflect"
	"testing"

	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/store"
)

// TestSeatNames: the rule set is given each seat's name as the pages
// show it, under the seat's key.
func TestSeatNames(t *testing.T) {
	m := &store.MatchRow{Players: []store.MatchPlayerRow{
		{Seat: 0, BotName: "HitAndSunkPython", Owner: "ann"},
		{Seat: 1, BotName: "HitAndSunkPython", Owner: "ben"},
		{Seat: 2, BotName: "hitandsunk-python3", Owner: "house"},
	}}
	rs, err := rulesets.Registry().Get("hitandsunk")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"0": "HitAndSunkPython (ann)", "1": "HitAndSunkPython (ben)", "2": "hitandsunk-python3 (house bot)"}
	if got := seatNames(m, rs.Traits()); !reflect.DeepEqual(got, want) {
		t.Errorf("seatNames = %v, want %v", got, want)
	}
	if rs, _ = rulesets.Registry().Get("entelect"); seatNames(m, rs.Traits())["A"] != "HitAndSunkPython (ann)" {
		t.Errorf("Entelect's seats are keyed A and B: %v", seatNames(m, rs.Traits()))
	}
}
