package web

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/broadside/broadside/internal/game/hitandsunk"
)

// BenchmarkHitAndSunkReplayStep measures one match page's replay step of
// the largest Hit and Sunk game: 30 ships on a 60×60 board for 100 rounds,
// three events a turn (the whole replay.json is read for every step).
func BenchmarkHitAndSunkReplayStep(b *testing.B) {
	const ships, rounds = 30, 100
	r := hitandsunk.Replay{Game: "hitandsunk", Version: hitandsunk.ReplayVersion, Size: 30 + ships, Rounds: rounds}
	snap := hitandsunk.Snapshot{Mines: [][2]int{{1, 1}, {5, 9}}}
	for id := range ships {
		r.Players = append(r.Players, hitandsunk.ReplayPlayer{ID: id, Key: fmt.Sprint(id), Name: fmt.Sprintf("bot %d", id), Ship: "Battleship"})
		snap.Ships = append(snap.Ships, hitandsunk.ShipState{ID: id, X: 4 + id, Y: 2 * id, Facing: 2, Hull: "1101", Alive: true, Score: id})
	}
	r.Start = snap
	for round := 1; round <= rounds; round++ {
		order := make([]int, ships)
		for id := range ships {
			order[id] = id
			target := (id + 1) % ships
			r.Turns = append(r.Turns, hitandsunk.ReplayTurn{Round: round, Ship: id, Events: []hitandsunk.Event{
				{Kind: "fire", Ship: id, X: 10, Y: 12}, {Kind: "hit", Ship: id, Target: &target, X: 10, Y: 12},
				{Kind: "move", Ship: id, X: 11, Y: 12},
			}})
		}
		r.Ends = append(r.Ends, hitandsunk.RoundEnd{Round: round, Order: order, Snapshot: snap})
	}
	data, err := json.Marshal(r)
	if err != nil {
		b.Fatal(err)
	}
	zr := replayZip(b, map[string][]byte{replayJSONFile: data})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if out, err := readGameReplay(zr, rounds, nil); err != nil || out.Count != rounds+1 {
			b.Fatalf("%v %v", out, err)
		}
	}
}
