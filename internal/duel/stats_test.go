package duel

import (
	"math"
	"testing"
)

// delta05 is the test the hand-computed figures below are for.
var delta05 = Test{Delta: 0.05, Alpha: 0.05, Beta: 0.05}

func TestWilson95(t *testing.T) {
	// Hand-computed: centre (p + z²/2n)/(1 + z²/n), half-width
	// z·√(p(1−p)/n + z²/4n²)/(1 + z²/n), z = 1.95996.
	tests := []struct {
		name   string
		s      Score
		lo, hi float64
	}{
		{"no game", Score{}, 0, 1},
		{"7 of 10", Score{WinsA: 7, WinsB: 3}, 0.39677, 0.89222},
		{"10 of 10", Score{WinsA: 10}, 0.72246, 1}, // lo = n/(n+z²)
		{"0 of 10", Score{WinsB: 10}, 0, 0.27754},  // hi = z²/(n+z²)
		{"20 of 20", Score{WinsA: 20}, 0.83887, 1}, // lo = 20/23.8415
		{"draws as half", Score{WinsA: 1, Draws: 2, WinsB: 1}, 0.15004, 0.84996},
		{"all draws", Score{Draws: 4}, 0.15004, 0.84996}, // the same p = 0.5, n = 4
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := Wilson95(tt.s)
			if math.Abs(lo-tt.lo) > 1e-4 || math.Abs(hi-tt.hi) > 1e-4 {
				t.Errorf("Wilson95(%+v) = [%.5f, %.5f], want [%.5f, %.5f]", tt.s, lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

func TestRate(t *testing.T) {
	tests := []struct {
		s    Score
		want float64
	}{
		{Score{}, 0.5},
		{Score{WinsA: 3, WinsB: 1}, 0.75},
		{Score{WinsA: 1, Draws: 2, WinsB: 1}, 0.5},
		{Score{Draws: 1, WinsB: 1}, 0.25},
	}
	for _, tt := range tests {
		if got := tt.s.Rate(); got != tt.want {
			t.Errorf("%+v: rate %v, want %v", tt.s, got, tt.want)
		}
	}
}

// TestSPRT feeds games one at a time (or as pairs) and checks the
// decision after the last. With δ = 0.05 and α = β = 0.05 the bounds are
// ±ln 19 = ±2.94444; test A moves by ln 1.1 = 0.09531 for A's win and ln
// 0.9 = −0.10536 for A's loss (test B the other way round), and by half
// their sum, −0.0050252, for a draw. So A needs 31 straight wins (30 give
// 2.8593, 31 give 2.9547), B 31 straight wins, and 586 straight draws
// (2.94474) make both tests accept "not better" where 585 (2.93971) do not.
func TestSPRT(t *testing.T) {
	const (
		a = WinA
		b = WinB
		d = Draw
	)
	repeat := func(o Outcome, n int) []Outcome {
		out := make([]Outcome, n)
		for i := range out {
			out[i] = o
		}
		return out
	}
	tests := []struct {
		name  string
		test  Test
		games []Outcome
		pairs bool
		want  Decision
	}{
		{"nothing yet", delta05, nil, false, Continue},
		{"30 wins", delta05, repeat(a, 30), false, Continue},
		{"31 wins", delta05, repeat(a, 31), false, ABetter},
		{"30 losses", delta05, repeat(b, 30), false, Continue},
		{"31 losses", delta05, repeat(b, 31), false, BBetter},
		{"585 draws", delta05, repeat(d, 585), false, Continue},
		{"586 draws", delta05, repeat(d, 586), false, NoDifference},
		// δ = 0.1: ln 1.2 = 0.18232 a win, so 17 wins (3.0995), not 16 (2.9172).
		{"δ 0.1, 16 wins", Test{Delta: 0.1, Alpha: 0.05, Beta: 0.05}, repeat(a, 16), false, Continue},
		{"δ 0.1, 17 wins", Test{Delta: 0.1, Alpha: 0.05, Beta: 0.05}, repeat(a, 17), false, ABetter},
		// Pairs are judged after both halves: 15 pairs of wins are 30
		// games, 16 pairs 32 (the test would have stopped at 31).
		{"15 pairs", delta05, repeat(a, 30), true, Continue},
		{"16 pairs", delta05, repeat(a, 32), true, ABetter},
		// A win and a loss per pair: −0.01005 a pair for both tests, so
		// 293 pairs (−2.94474) decide no difference and 292 do not.
		{"292 split pairs", delta05, alternate(a, b, 584), true, Continue},
		{"293 split pairs", delta05, alternate(a, b, 586), true, NoDifference},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSPRT(tt.test)
			got := Continue
			step := 1
			if tt.pairs {
				step = 2
			}
			for i := 0; i+step <= len(tt.games); i += step {
				if got != Continue {
					t.Fatalf("decided %v after %d games, before the last", got, i)
				}
				var sc Score
				for _, o := range tt.games[i : i+step] {
					sc = sc.Add(o.score())
				}
				got = s.Observe(sc)
			}
			if got != tt.want {
				llrA, llrB, lo, hi := s.LLR()
				t.Errorf("decision %v, want %v (ratios %.5f, %.5f; bounds %.5f, %.5f)", got, tt.want, llrA, llrB, lo, hi)
			}
		})
	}
}

// TestSPRTStaysDecided: 28 losses bring test A to −2.95009, where it
// accepts "A not better". 62 more wins seen at once bring it to 2.95923,
// above its upper bound, and test B to −3.86366, "B not better": no
// difference, not "A better", as a decided test stays decided.
func TestSPRTStaysDecided(t *testing.T) {
	s := NewSPRT(delta05)
	for range 28 {
		if d := s.Observe(Score{WinsB: 1}); d != Continue {
			t.Fatalf("decided %v too soon", d)
		}
	}
	if d := s.Observe(Score{WinsA: 62}); d != NoDifference {
		llrA, llrB, _, _ := s.LLR()
		t.Errorf("decision %v, want no difference (ratios %.5f, %.5f)", d, llrA, llrB)
	}
}

func alternate(x, y Outcome, n int) []Outcome {
	out := make([]Outcome, n)
	for i := range out {
		out[i] = x
		if i%2 == 1 {
			out[i] = y
		}
	}
	return out
}

func TestVerdict(t *testing.T) {
	for d, want := range map[Decision]string{Continue: "undecided", ABetter: "A better", BBetter: "B better", NoDifference: "undecided"} {
		if got := d.Verdict(); got != want {
			t.Errorf("%d: %q, want %q", d, got, want)
		}
	}
}
