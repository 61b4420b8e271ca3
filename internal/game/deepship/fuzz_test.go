package deepship

import (
	"testing"
)

// FuzzParse feeds arbitrary bot lines to the parsers: they must never panic,
// and an accepted placement must be a whole fleet on the board.
func FuzzParse(f *testing.F) {
	f.Add(valid)
	f.Add("take-turn;I10")
	f.Add("place-ships;2;vertical;A+0;3;horizontal;Z99")
	f.Fuzz(func(t *testing.T, s string) {
		if ships, err := ParsePlacement(s); err == nil {
			b := NewBoard(ships)
			n := 0
			for _, sh := range ships {
				for _, c := range sh.Cells {
					if !c.OnBoard() {
						t.Fatalf("accepted cell %v off the board", c)
					}
					b.Fire(c)
					n++
				}
			}
			if n != 17 || !b.AllSunk() {
				t.Fatalf("fleet of %d cells, all sunk %v", n, b.AllSunk())
			}
		}
		_, _ = ParseCoord(s)
	})
}

// BenchmarkGame measures the pure rules of one whole game: both placements
// parsed, then every cell fired at in turn until a fleet sinks.
func BenchmarkGame(b *testing.B) {
	for b.Loop() {
		var boards [2]*Board
		for i := range boards {
			ships, err := ParsePlacement(valid)
			if err != nil {
				b.Fatal(err)
			}
			boards[i] = NewBoard(ships)
		}
		for turn := 0; !boards[0].AllSunk() && !boards[1].AllSunk(); turn++ {
			cell := turn / 2
			boards[1-turn%2].Fire(Coord{Row: cell / Cols, Col: cell % Cols})
		}
	}
}
