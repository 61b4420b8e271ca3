package rating

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestGlickmanExample is the worked example of Glickman's "Example of the
// Glicko-2 system": a 1500/200/0.06 player beats 1400/30, loses to 1550/100
// and to 1700/300.
func TestGlickmanExample(t *testing.T) {
	got := Update(Rating{1500, 200, 0.06}, []Result{
		{Opponent: Rating{1400, 30, 0.06}, Score: 1},
		{Opponent: Rating{1550, 100, 0.06}, Score: 0},
		{Opponent: Rating{1700, 300, 0.06}, Score: 0},
	})
	if !near(got.Rating, 1464.06, 0.01) || !near(got.Deviation, 151.52, 0.01) || !near(got.Volatility, 0.05999, 0.00001) {
		t.Fatalf("got %.4f / %.4f / %.6f, want 1464.06 / 151.52 / 0.05999", got.Rating, got.Deviation, got.Volatility)
	}
}

func TestUpdate(t *testing.T) {
	def := Default()
	tests := []struct {
		name  string
		games []Result
		check func(t *testing.T, r Rating)
	}{
		{"win raises rating and lowers deviation", []Result{{def, 1}}, func(t *testing.T, r Rating) {
			if r.Rating <= def.Rating || r.Deviation >= def.Deviation {
				t.Fatalf("got %+v", r)
			}
		}},
		{"loss lowers rating", []Result{{def, 0}}, func(t *testing.T, r Rating) {
			if r.Rating >= def.Rating {
				t.Fatalf("got %+v", r)
			}
		}},
		{"draw between equals keeps rating", []Result{{def, 0.5}}, func(t *testing.T, r Rating) {
			if !near(r.Rating, def.Rating, 1e-9) {
				t.Fatalf("got %+v", r)
			}
		}},
		{"no games only grows deviation, capped at the default", nil, func(t *testing.T, r Rating) {
			if r.Rating != def.Rating || r.Deviation != DefaultDeviation {
				t.Fatalf("got %+v", r)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, Update(def, tc.games)) })
	}
}

func TestMatch(t *testing.T) {
	def := Default()
	t.Run("two players: winner gains what loser loses", func(t *testing.T) {
		got, err := Match([]Player{{def, 2}, {def, 1}})
		if err != nil {
			t.Fatal(err)
		}
		if got[1].Rating <= got[0].Rating || !near(got[1].Rating-1500, 1500-got[0].Rating, 1e-9) {
			t.Fatalf("got %+v", got)
		}
		// Same as the single-game update.
		if want := Update(def, []Result{{def, 1}}); got[1] != want {
			t.Fatalf("winner %+v, want %+v", got[1], want)
		}
	})
	t.Run("four players by rank", func(t *testing.T) {
		got, err := Match([]Player{{def, 3}, {def, 1}, {def, 4}, {def, 2}})
		if err != nil {
			t.Fatal(err)
		}
		if !(got[1].Rating > got[3].Rating && got[3].Rating > got[0].Rating && got[0].Rating > got[2].Rating) {
			t.Fatalf("ratings not in rank order: %+v", got)
		}
	})
	t.Run("equal ranks draw", func(t *testing.T) {
		got, err := Match([]Player{{def, 1}, {def, 1}})
		if err != nil {
			t.Fatal(err)
		}
		if !near(got[0].Rating, 1500, 1e-9) || got[0] != got[1] {
			t.Fatalf("got %+v", got)
		}
	})
	for _, bad := range [][]Player{nil, {{def, 1}}, {{def, 0}, {def, 1}}} {
		if _, err := Match(bad); err == nil {
			t.Errorf("Match(%+v) accepted", bad)
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	players := []Player{{Rating{1600, 80, 0.06}, 1}, {Rating{1450, 120, 0.06}, 2}}
	for b.Loop() {
		if _, err := Match(players); err != nil {
			b.Fatal(err)
		}
	}
}
