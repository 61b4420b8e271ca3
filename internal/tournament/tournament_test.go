package tournament

import (
	"math/rand/v2"
	"testing"
)

func TestRoundRobinCoversEveryPairOnceWithBalancedSeats(t *testing.T) {
	for n := 2; n <= 16; n++ {
		for _, games := range []int{1, 2, 3} {
			ps, err := RoundRobinSchedule(n, games)
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			if want := n * (n - 1) / 2 * games; len(ps) != want {
				t.Fatalf("n=%d games=%d: %d pairings, want %d", n, games, len(ps), want)
			}
			meetings := map[[2]int]int{}
			first := make([]int, n)
			second := make([]int, n)
			perRound := map[int]map[int]bool{}
			for _, p := range ps {
				if p.A == p.B || p.A < 0 || p.B < 0 || p.A >= n || p.B >= n {
					t.Fatalf("n=%d: bad pairing %+v", n, p)
				}
				lo, hi := min(p.A, p.B), max(p.A, p.B)
				meetings[[2]int{lo, hi}]++
				first[p.A]++
				second[p.B]++
				if perRound[p.Round] == nil {
					perRound[p.Round] = map[int]bool{}
				}
				for _, e := range []int{p.A, p.B} {
					if perRound[p.Round][e] {
						t.Fatalf("n=%d: entrant %d plays twice in round %d", n, e, p.Round)
					}
					perRound[p.Round][e] = true
				}
			}
			for a := 0; a < n; a++ {
				for b := a + 1; b < n; b++ {
					if meetings[[2]int{a, b}] != games {
						t.Fatalf("n=%d games=%d: %d and %d meet %d times", n, games, a, b, meetings[[2]int{a, b}])
					}
				}
				if d := first[a] - second[a]; d > 1 || d < -1 {
					t.Errorf("n=%d games=%d: entrant %d has %d first seats and %d second seats", n, games, a, first[a], second[a])
				}
			}
		}
	}
}

func TestRoundRobinRejectsTooFewEntrants(t *testing.T) {
	for _, tc := range []struct{ n, games int }{{0, 1}, {1, 1}, {4, 0}} {
		if _, err := RoundRobinSchedule(tc.n, tc.games); err == nil {
			t.Errorf("RoundRobinSchedule(%d, %d): want an error", tc.n, tc.games)
		}
	}
}

// playBracket plays a bracket to its end, deciding each playable match with
// decide, and returns the final states and every real game's loser count.
func playBracket(t *testing.T, b *Bracket, decide func(a, c int) int) ([]MatchState, map[int]int) {
	t.Helper()
	results := map[int]int{}
	losses := map[int]int{}
	for step := 0; ; step++ {
		if step > 4*len(b.Matches) {
			t.Fatalf("n=%d: bracket does not finish", b.Entrants)
		}
		st, err := b.Resolve(results)
		if err != nil {
			t.Fatalf("n=%d: %v", b.Entrants, err)
		}
		progressed := false
		for _, m := range st {
			if m.Playable() {
				w := decide(m.Players[0], m.Players[1])
				results[m.ID] = w
				losses[m.Players[1-w]]++
				progressed = true
			}
		}
		if !progressed {
			return st, losses
		}
	}
}

func TestDoubleEliminationBrackets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	deciders := map[string]func(a, c int) int{
		"top seed wins":    func(a, c int) int { return boolSlot(c < a) },
		"bottom seed wins": func(a, c int) int { return boolSlot(c > a) },
		"random":           func(a, c int) int { return rng.IntN(2) },
	}
	for n := 2; n <= 33; n++ {
		for name, decide := range deciders {
			b, err := NewDoubleElimination(n)
			if err != nil {
				t.Fatal(err)
			}
			st, losses := playBracket(t, b, decide)
			pos, ok := b.Placements(st)
			if !ok {
				t.Fatalf("n=%d %s: bracket not complete", n, name)
			}
			gf, reset := st[len(st)-2], st[len(st)-1]
			champion := reset.Winner
			// The rematch rule: the reset is played exactly when the
			// losers' champion won the grand final.
			if lbWon := gf.Winner == gf.Players[1]; reset.Played != lbWon {
				t.Errorf("n=%d %s: reset played=%v, losers' champion won grand final=%v", n, name, reset.Played, lbWon)
			}
			counts := map[int]int{}
			for e := 0; e < n; e++ {
				counts[pos[e]]++
				if e == champion {
					if losses[e] > 1 || pos[e] != 1 {
						t.Errorf("n=%d %s: champion %d has %d losses, position %d", n, name, e, losses[e], pos[e])
					}
					continue
				}
				// Everyone else is out after exactly two real losses.
				if losses[e] != 2 {
					t.Errorf("n=%d %s: entrant %d out with %d losses", n, name, e, losses[e])
				}
				if pos[e] < 2 {
					t.Errorf("n=%d %s: entrant %d placed %d", n, name, e, pos[e])
				}
			}
			if counts[1] != 1 || counts[2] != 1 {
				t.Errorf("n=%d %s: positions 1 and 2 must be unique: %v", n, name, counts)
			}
			for _, m := range st {
				if m.Played && (m.Players[0] < 0 || m.Players[1] < 0) {
					t.Errorf("n=%d %s: a game was played against a bye: %+v", n, name, m)
				}
			}
			if name == "top seed wins" && champion != 0 {
				t.Errorf("n=%d: top seed should win when the better seed always wins, got %d", n, champion)
			}
		}
	}
}

func TestDoubleEliminationByesGoToTopSeeds(t *testing.T) {
	b, err := NewDoubleElimination(5)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := b.Resolve(map[int]int{})
	byes := map[int]bool{}
	for _, m := range st {
		if m.Side == WinnersSide && m.Round == 1 && m.Decided {
			byes[m.Winner] = true
		}
	}
	for _, s := range []int{0, 1, 2} {
		if !byes[s] {
			t.Errorf("seed %d should have a first-round bye; byes: %v", s, byes)
		}
	}
	if len(byes) != 3 {
		t.Errorf("5 entrants on an 8 bracket: want 3 byes, got %d", len(byes))
	}
}

func TestDoubleEliminationRejectsBadInput(t *testing.T) {
	if _, err := NewDoubleElimination(1); err == nil {
		t.Error("one entrant: want an error")
	}
	b, _ := NewDoubleElimination(4)
	if _, err := b.Resolve(map[int]int{0: 2}); err == nil {
		t.Error("winning slot 2: want an error")
	}
	if _, err := b.Resolve(map[int]int{len(b.Matches) - 2: 0}); err == nil {
		t.Error("a result for an unplayable grand final: want an error")
	}
}

func TestSwissAvoidsRematches(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 2; n <= 33; n++ {
		var games []Game
		var byes []int
		met := map[[2]int]bool{}
		rounds := SwissRounds(n)
		for r := 0; r < rounds; r++ {
			pairs, bye, err := SwissPair(r, n, games, byes)
			if err != nil {
				t.Fatal(err)
			}
			if (n%2 == 1) != (bye >= 0) {
				t.Fatalf("n=%d round %d: bye %d", n, r, bye)
			}
			if bye >= 0 {
				for _, b := range byes {
					if b == bye && len(byes) < n {
						t.Errorf("n=%d round %d: %d gets a second bye", n, r, bye)
					}
				}
				byes = append(byes, bye)
			}
			seen := map[int]bool{}
			for _, p := range pairs {
				if seen[p.A] || seen[p.B] || p.A == bye || p.B == bye {
					t.Fatalf("n=%d round %d: entrant paired twice: %+v", n, r, pairs)
				}
				seen[p.A], seen[p.B] = true, true
				key := [2]int{min(p.A, p.B), max(p.A, p.B)}
				if met[key] {
					t.Errorf("n=%d round %d: rematch %v", n, r, key)
				}
				met[key] = true
				games = append(games, Game{A: p.A, B: p.B, Outcome: Outcome(rng.IntN(3))})
			}
			if len(seen)+len(byes[len(byes)-boolInt(bye >= 0):]) != n {
				t.Fatalf("n=%d round %d: %d entrants paired", n, r, len(seen))
			}
		}
	}
}

func TestStandingsTieBreaks(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		format Format
		games  []Game
		want   []int
	}{
		{
			name: "score first", n: 3, format: RoundRobin,
			games: []Game{{A: 0, B: 1, Outcome: Loss}, {A: 1, B: 2, Outcome: Win}, {A: 0, B: 2, Outcome: Win}},
			want:  []int{1, 0, 2},
		},
		{
			name: "round robin: head-to-head breaks a tie on score", n: 4, format: RoundRobin,
			games: []Game{
				{A: 0, B: 1, Outcome: Loss}, {A: 2, B: 3, Outcome: Win},
				{A: 0, B: 2, Outcome: Win}, {A: 1, B: 3, Outcome: Loss},
				{A: 0, B: 3, Outcome: Win}, {A: 1, B: 2, Outcome: Win},
			},
			// 0, 1 on 4 points each; 1 beat 0.
			want: []int{1, 0, 2, 3},
		},
		{
			name: "in-game points, then seed", n: 2, format: Swiss,
			games: []Game{{A: 0, B: 1, Outcome: Draw, PointsA: 10, PointsB: 30}},
			want:  []int{1, 0},
		},
		{
			name: "seed when all else is equal", n: 2, format: Swiss,
			games: []Game{{A: 1, B: 0, Outcome: Draw}},
			want:  []int{0, 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := Standings(tc.n, tc.games, nil, tc.format)
			for i, e := range tc.want {
				if st[i].Entrant != e {
					t.Fatalf("position %d: entrant %d, want %d (%+v)", i+1, st[i].Entrant, e, st)
				}
			}
		})
	}
}

func boolSlot(b bool) int {
	if b {
		return 1
	}
	return 0
}

func boolInt(b bool) int { return boolSlot(b) }
