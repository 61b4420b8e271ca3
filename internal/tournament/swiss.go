package tournament

import "fmt"

// SwissRounds is the usual number of Swiss rounds for n entrants: enough
// for a single undefeated winner, ceil(log2 n).
func SwissRounds(n int) int {
	r := 0
	for 1<<r < n {
		r++
	}
	if r == 0 {
		r = 1
	}
	return r
}

// SwissPair pairs the next Swiss round. Entrants are ordered by the current
// standings; each is paired with the highest-placed entrant it has not met,
// backtracking when that leaves someone without a partner, so no two
// entrants meet twice while another pairing exists. With an odd count the
// lowest-placed entrant without a bye sits out (bye, returned separately;
// it scores as a win). Seats go to whoever has had fewer first seats.
func SwissPair(round, n int, played []Game, byes []int) (pairs []Pairing, bye int, err error) {
	if n < 2 {
		return nil, -1, fmt.Errorf("swiss needs at least 2 entrants, got %d", n)
	}
	met := make(map[[2]int]bool)
	firstSeats := make([]int, n)
	for _, g := range played {
		met[[2]int{g.A, g.B}] = true
		met[[2]int{g.B, g.A}] = true
		firstSeats[g.A]++
	}
	order := make([]int, 0, n)
	for _, s := range Standings(n, played, byes, Swiss) {
		order = append(order, s.Entrant)
	}
	bye = -1
	if n%2 == 1 {
		had := make(map[int]bool, len(byes))
		for _, b := range byes {
			had[b] = true
		}
		for i := len(order) - 1; i >= 0; i-- {
			if !had[order[i]] {
				bye = order[i]
				break
			}
		}
		if bye < 0 {
			bye = order[len(order)-1]
		}
		order = removeValue(order, bye)
	}
	budget := 200000
	matched, ok := pairOff(order, met, &budget)
	if !ok {
		// No pairing without a rematch exists (or none was found within
		// the search budget): allow rematches rather than stall the battle.
		budget = 1 << 30
		matched, _ = pairOff(order, map[[2]int]bool{}, &budget)
	}
	for i := 0; i+1 < len(matched); i += 2 {
		a, b := matched[i], matched[i+1]
		if firstSeats[b] < firstSeats[a] || (firstSeats[b] == firstSeats[a] && round%2 == 1) {
			a, b = b, a
		}
		pairs = append(pairs, Pairing{Round: round, A: a, B: b})
	}
	return pairs, bye, nil
}

// pairOff returns order rearranged into consecutive pairs that have not met,
// preferring pairs close in the order; false when no such pairing exists.
func pairOff(order []int, met map[[2]int]bool, budget *int) ([]int, bool) {
	if len(order) == 0 {
		return nil, true
	}
	if *budget <= 0 {
		return nil, false
	}
	*budget--
	first := order[0]
	for k := 1; k < len(order); k++ {
		other := order[k]
		if met[[2]int{first, other}] {
			continue
		}
		rest := make([]int, 0, len(order)-2)
		rest = append(rest, order[1:k]...)
		rest = append(rest, order[k+1:]...)
		if tail, ok := pairOff(rest, met, budget); ok {
			return append([]int{first, other}, tail...), true
		}
	}
	return nil, false
}

func removeValue(xs []int, v int) []int {
	out := make([]int, 0, len(xs))
	for _, x := range xs {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
