package tournament

import "fmt"

// RoundRobinSchedule pairs every two of n entrants exactly once per cycle and
// plays gamesPerPairing cycles, swapping seats each cycle. It uses the circle
// method: with an odd n one entrant sits out each round. Seats within a cycle
// are balanced so that no entrant has more than one first seat more than
// second seats.
func RoundRobinSchedule(n, gamesPerPairing int) ([]Pairing, error) {
	if n < 2 {
		return nil, fmt.Errorf("a round robin needs at least 2 entrants, got %d", n)
	}
	if gamesPerPairing < 1 {
		return nil, fmt.Errorf("games per pairing must be at least 1, got %d", gamesPerPairing)
	}
	m := n
	if m%2 == 1 {
		m++ // the extra slot is a bye
	}
	rounds := m - 1
	firstSeat := balancedSeats(n)
	// circle[0] stays put; the rest rotate one step per round.
	circle := make([]int, m)
	for i := range circle {
		circle[i] = i
	}
	var cycle []Pairing
	for r := 0; r < rounds; r++ {
		for i := 0; i < m/2; i++ {
			a, b := circle[i], circle[m-1-i]
			if a >= n || b >= n {
				continue
			}
			if !firstSeat[[2]int{a, b}] {
				a, b = b, a
			}
			cycle = append(cycle, Pairing{Round: r, A: a, B: b})
		}
		// Rotate all but the first position clockwise.
		last := circle[m-1]
		copy(circle[2:], circle[1:m-1])
		circle[1] = last
	}
	out := make([]Pairing, 0, len(cycle)*gamesPerPairing)
	for g := 0; g < gamesPerPairing; g++ {
		for _, p := range cycle {
			q := Pairing{Round: g*rounds + p.Round, A: p.A, B: p.B}
			if g%2 == 1 {
				q.A, q.B = q.B, q.A
			}
			out = append(out, q)
		}
	}
	return out, nil
}

// balancedSeats decides, for every pair, who takes the first seat, so that
// each entrant's first and second seats differ by at most one. It orients
// the edges of the complete graph along an Euler circuit: on an odd number
// of vertices every degree is even, so in equals out; an even n gets a
// phantom vertex whose edges are then dropped, costing at most one.
func balancedSeats(n int) map[[2]int]bool {
	m := n
	if m%2 == 0 {
		m++
	}
	used := make([][]bool, m)
	for i := range used {
		used[i] = make([]bool, m)
		used[i][i] = true
	}
	next := make([]int, m) // the next neighbour to try, per vertex
	var circuit []int
	stack := []int{0}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		for next[v] < m && used[v][next[v]] {
			next[v]++
		}
		if next[v] == m {
			circuit = append(circuit, v)
			stack = stack[:len(stack)-1]
			continue
		}
		w := next[v]
		used[v][w], used[w][v] = true, true
		stack = append(stack, w)
	}
	first := make(map[[2]int]bool, n*(n-1))
	for i := 0; i+1 < len(circuit); i++ {
		a, b := circuit[i], circuit[i+1]
		if a < n && b < n {
			first[[2]int{a, b}] = true
		}
	}
	return first
}
