package brainjar

import (
	"encoding/json"
	"testing"
)

// FuzzParse feeds arbitrary bot output to both parsers and a game: they must
// never panic, and whatever they accept must be on the grid.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"move":"34"}`))
	f.Add([]byte(`{"2":{"point":"a","orientation":"vertical"}}`))
	f.Add([]byte(`{"move":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if fleet, err := ParsePlacement(data); err == nil {
			for _, s := range fleet {
				for _, c := range s.Cells {
					if !c.inside() {
						t.Fatalf("accepted cell %v outside the grid", c)
					}
				}
			}
			g := NewGame([2]Fleet{fleet, fleet}, 0)
			if _, err := json.Marshal(g.Snapshot(1)); err != nil {
				t.Fatal(err)
			}
		}
		if c, err := ParseMove(data); err == nil && !c.inside() {
			t.Fatalf("accepted move %v outside the grid", c)
		}
	})
}

// BenchmarkGame measures the pure rules of one whole game: placements parsed,
// every cell of both grids fired at with a snapshot encoded before each shot.
func BenchmarkGame(b *testing.B) {
	for b.Loop() {
		fleet, err := ParsePlacement([]byte(sample))
		if err != nil {
			b.Fatal(err)
		}
		g := NewGame([2]Fleet{fleet, fleet}, 0)
		next := [2]int{}
		for {
			if _, over := g.Winner(); over {
				break
			}
			p := g.Current()
			if _, err := json.Marshal(g.Snapshot(p)); err != nil {
				b.Fatal(err)
			}
			c := Cell{Col: next[p] / Size, Row: next[p] % Size}
			next[p]++
			if _, err := g.Shoot(c); err != nil {
				b.Fatal(err)
			}
		}
	}
}
