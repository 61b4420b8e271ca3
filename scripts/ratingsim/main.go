// Command ratingsim plays simulated seasons in process, between bots of
// known strength, and reports how many games each rating method needs
// before the leaderboard (by conservative rating, rating − 2 × deviation)
// first orders the bots correctly, and how often it stays correct after,
// with and without paired games.
//
// A two-player match is decided by the bots' strengths, a seat advantage,
// and the luck of the seed (who shoots first, how the fleets fall), which
// favours one seat; a pair plays the same seed twice with the seats
// swapped, so its luck and the seat advantage fall once to each bot, as on
// the ladder. A free-for-all ranks its bots by strength plus each bot's
// luck of the seed. Run it with: go run ./scripts/ratingsim
package main

import (
	"cmp"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/broadside/broadside/internal/rating"
)

func main() {
	bots := flag.Int("bots", 8, "bots in the season")
	gap := flag.Float64("gap", 0.35, "strength between neighbouring bots, in units of one game's noise")
	seat := flag.Float64("seat", 0.3, "the first seat's advantage, same units")
	luck := flag.Float64("luck", 1.0, "spread of the seed's luck, same units")
	games := flag.Int("games", 4000, "games in a season")
	seasons := flag.Int("seasons", 40, "seasons per method")
	field := flag.Int("field", 6, "bots in a free-for-all")
	flag.Parse()
	s := sim{bots: *bots, gap: *gap, seat: *seat, luck: *luck, games: *games}
	fmt.Printf("%d bots %.2f apart, seat advantage %.2f, seed luck %.2f, one game's noise 1; %d seasons of %d games each\n",
		s.bots, s.gap, s.seat, s.luck, *seasons, s.games)
	fmt.Println("games until the leaderboard first orders every bot correctly (median, 90th percentile), and the share of the rest of the season it stays correct:")
	for _, c := range []struct {
		name   string
		method rating.Method
		paired bool
	}{
		{"Glicko-2, single matches", rating.Glicko2, false},
		{"Glicko-2, pairs (the ladder)", rating.Glicko2, true},
		{"Weng–Lin, single matches", rating.WengLin, false},
		{"Weng–Lin, pairs", rating.WengLin, true},
	} {
		report(c.name, *seasons, s.games, func(seed uint64) outcome { return s.twoPlayer(seed, c.method, c.paired) })
	}
	fmt.Printf("free-for-alls of %d bots (Hit and Sunk's ladder), games counted per bot seat:\n", *field)
	for _, c := range []struct {
		name   string
		method rating.Method
	}{
		{"Weng–Lin (the ladder)", rating.WengLin},
		{"Glicko-2, as one game against each other bot", rating.Glicko2},
	} {
		report(c.name, *seasons, s.games, func(seed uint64) outcome { return s.freeForAll(seed, c.method, *field) })
	}
}

// outcome is one season: the games played when the order was first
// right (past the season: never), and the share of later checks at which
// it was right.
type outcome struct {
	first int
	kept  float64
}

// tracker follows the order through a season.
type tracker struct {
	first, right, checks int
}

func (t *tracker) check(played int, ok bool) {
	if t.first == 0 {
		if ok {
			t.first = played
		}
		return
	}
	t.checks++
	if ok {
		t.right++
	}
}

func (t tracker) outcome(most int) outcome {
	if t.first == 0 {
		return outcome{first: most + 1}
	}
	if t.checks == 0 {
		return outcome{first: t.first, kept: 1}
	}
	return outcome{first: t.first, kept: float64(t.right) / float64(t.checks)}
}

func report(name string, seasons, most int, run func(seed uint64) outcome) {
	var first []int
	kept := 0.0
	for i := range seasons {
		o := run(uint64(i + 1))
		first = append(first, o.first)
		kept += o.kept
	}
	slices.Sort(first)
	show := func(n int) string {
		if n > most {
			return fmt.Sprintf("more than %d", most)
		}
		return fmt.Sprint(n)
	}
	fmt.Printf("  %-48s %s, %s; right %.0f%% of the time after\n", name, show(first[len(first)/2]),
		show(first[len(first)*9/10]), 100*kept/float64(seasons))
}

type sim struct {
	bots            int
	gap, seat, luck float64
	games           int
}

// strength of bot i: bot 0 is the weakest.
func (s sim) strength(i int) float64 { return s.gap * float64(i) }

// twoPlayer plays a season of random two-player matchings.
func (s sim) twoPlayer(seed uint64, method rating.Method, paired bool) outcome {
	rng := rand.New(rand.NewPCG(seed, 2))
	r := make([]rating.Rating, s.bots)
	for i := range r {
		r[i] = rating.Default()
	}
	var t tracker
	for played := 0; played < s.games; {
		a, b := s.pick(rng)
		seedLuck := rng.NormFloat64() * s.luck
		half := func(first, second int) []int {
			d := s.strength(first) - s.strength(second) + s.seat + seedLuck + rng.NormFloat64()
			if d > 0 {
				return []int{1, 2}
			}
			return []int{2, 1}
		}
		g1 := half(a, b) // a in the first seat
		var games [][]int
		games = append(games, g1)
		if paired {
			g2 := half(b, a) // the same seed, the seats swapped
			games = append(games, []int{g2[1], g2[0]})
		}
		var err error
		var next []rating.Rating
		if next, err = rating.Period(method, []rating.Rating{r[a], r[b]}, games); err != nil {
			panic(err)
		}
		r[a], r[b] = next[0], next[1]
		played += len(games)
		t.check(played, ordered(r))
	}
	return t.outcome(s.games)
}

// freeForAll plays a season of free-for-alls of field bots, counting
// games as bot seats played.
func (s sim) freeForAll(seed uint64, method rating.Method, field int) outcome {
	rng := rand.New(rand.NewPCG(seed, 3))
	r := make([]rating.Rating, s.bots)
	for i := range r {
		r[i] = rating.Default()
	}
	var t tracker
	for played := 0; played < s.games; played += field {
		seats := rng.Perm(s.bots)[:field]
		perf := make([]float64, field)
		for i, b := range seats {
			perf[i] = s.strength(b) + rng.NormFloat64()*s.luck + rng.NormFloat64()
		}
		order := make([]int, field)
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(x, y int) bool { return perf[order[x]] > perf[order[y]] })
		ranks := make([]int, field)
		before := make([]rating.Rating, field)
		for place, i := range order {
			ranks[i] = place + 1
		}
		for i, b := range seats {
			before[i] = r[b]
		}
		next, err := rating.Period(method, before, [][]int{ranks})
		if err != nil {
			panic(err)
		}
		for i, b := range seats {
			r[b] = next[i]
		}
		t.check(played+field, ordered(r))
	}
	return t.outcome(s.games)
}

// pick draws two different bots.
func (s sim) pick(rng *rand.Rand) (int, int) {
	a := rng.IntN(s.bots)
	b := rng.IntN(s.bots - 1)
	if b >= a {
		b++
	}
	return a, b
}

// ordered reports whether the conservative ratings order the bots by
// strength (bot i stronger than bot i−1).
func ordered(r []rating.Rating) bool {
	idx := make([]int, len(r))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(r[x].Conservative(), r[y].Conservative()) })
	for i, b := range idx {
		if b != i {
			return false
		}
	}
	return true
}
