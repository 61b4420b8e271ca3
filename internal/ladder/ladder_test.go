package ladder

import (
	"math"
	"math/rand/v2"
	"testing"
)

func cands(ratings ...float64) []Candidate {
	out := make([]Candidate, len(ratings))
	for i, r := range ratings {
		out[i] = Candidate{BotID: int64(i + 1), VersionID: int64(100 + i), OwnerID: int64(i + 1), Rating: r, RD: 50}
	}
	return out
}

func TestPlanRules(t *testing.T) {
	tests := []struct {
		name  string
		cands func() []Candidate
		slots int
		check func(t *testing.T, pairs []Pair)
	}{
		{
			name: "never pairs a bot with itself, its owner's bots or a busy bot",
			cands: func() []Candidate {
				c := cands(1500, 1500, 1500, 1500)
				c[1].OwnerID = c[0].OwnerID
				c[2].Busy = true
				return c
			},
			slots: 4,
			check: func(t *testing.T, pairs []Pair) {
				for _, p := range pairs {
					if p.A.OwnerID == p.B.OwnerID || p.A.Busy || p.B.Busy {
						t.Errorf("bad pair %+v", p)
					}
				}
				if len(pairs) != 1 {
					t.Errorf("want 1 pair, got %d", len(pairs))
				}
			},
		},
		{
			name:  "each bot in at most one pair and slots respected",
			cands: func() []Candidate { return cands(1400, 1450, 1500, 1550, 1600, 1650, 1700) },
			slots: 2,
			check: func(t *testing.T, pairs []Pair) {
				if len(pairs) != 2 {
					t.Fatalf("want 2 pairs, got %d", len(pairs))
				}
				seen := map[int64]bool{}
				for _, p := range pairs {
					for _, id := range []int64{p.A.BotID, p.B.BotID} {
						if seen[id] {
							t.Errorf("bot %d twice", id)
						}
						seen[id] = true
					}
				}
			},
		},
		{
			name: "placement games come first",
			cands: func() []Candidate {
				c := cands(1500, 1500, 1500, 1500)
				c[3].PlacementLeft = 3
				c[3].GamesToday = 40
				return c
			},
			slots: 1,
			check: func(t *testing.T, pairs []Pair) {
				if len(pairs) != 1 || !pairs[0].Placement || (pairs[0].A.BotID != 4 && pairs[0].B.BotID != 4) {
					t.Errorf("want the placement bot first, got %+v", pairs)
				}
			},
		},
		{
			name: "house bots never ask but are chosen as opponents",
			cands: func() []Candidate {
				c := cands(1500, 1500)
				c[0].House = true
				return c
			},
			slots: 2,
			check: func(t *testing.T, pairs []Pair) {
				if len(pairs) != 1 {
					t.Fatalf("want 1 pair, got %d", len(pairs))
				}
			},
		},
		{
			name: "a bot at its daily cap does not ask",
			cands: func() []Candidate {
				c := cands(1500, 1500)
				c[0].GamesToday = 48
				c[1].GamesToday = 48
				return c
			},
			slots: 2,
			check: func(t *testing.T, pairs []Pair) {
				if len(pairs) != 0 {
					t.Errorf("want no pairs, got %+v", pairs)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 7))
			tc.check(t, Plan(tc.cands(), tc.slots, DefaultConfig(), rng))
		})
	}
}

func TestOpponentsAreNearInRatingWithSomeRandomness(t *testing.T) {
	c := make([]Candidate, 0, 41)
	for i := 0; i <= 40; i++ {
		c = append(c, Candidate{BotID: int64(i + 1), OwnerID: int64(i + 1), Rating: 1000 + 25*float64(i), RD: 50, House: i != 20})
	}
	rng := rand.New(rand.NewPCG(1, 1))
	opponents := map[int64]int{}
	for i := 0; i < 2000; i++ {
		pairs := Plan(c, 1, DefaultConfig(), rng)
		if len(pairs) != 1 {
			t.Fatalf("want 1 pair, got %d", len(pairs))
		}
		p := pairs[0]
		opp := p.B
		if p.B.BotID == 21 {
			opp = p.A
		}
		if d := math.Abs(opp.Rating - 1500); d > 3*25 {
			t.Fatalf("opponent %.0f points away, beyond the window", d)
		}
		opponents[opp.BotID]++
	}
	if len(opponents) < 4 {
		t.Errorf("want several different opponents, got %v", opponents)
	}
}

func TestQueueBalancesGamesPerDay(t *testing.T) {
	c := cands(1500, 1500, 1500)
	c[0].GamesToday = 5
	c[1].GamesToday = 1
	c[2].GamesToday = 3
	q := Queue(c, DefaultConfig(), rand.New(rand.NewPCG(1, 2)))
	if q[0].BotID != 2 || q[1].BotID != 3 || q[2].BotID != 1 {
		t.Errorf("queue order %v, want fewest games first", []int64{q[0].BotID, q[1].BotID, q[2].BotID})
	}
}
