// Package tournament schedules battles: round robin, double elimination and
// Swiss. It is pure: entrants are indexes 0..n-1 in seed order (0 is the top
// seed), and callers turn pairings into matches and feed results back.
package tournament

import "fmt"

// Format names a battle format.
type Format string

// The battle formats.
const (
	RoundRobin        Format = "round_robin"
	DoubleElimination Format = "double_elimination"
	Swiss             Format = "swiss"
)

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case RoundRobin, DoubleElimination, Swiss:
		return f, nil
	}
	return "", fmt.Errorf("unknown battle format %q (use round_robin, double_elimination or swiss)", s)
}

// Pairing is one game between two entrants; A takes the first seat (the
// original engine's player A).
type Pairing struct {
	Round int
	A, B  int
}

// Outcome of one game for its first seat.
type Outcome int

// Game outcomes from the first seat's point of view.
const (
	Loss Outcome = iota
	Draw
	Win
)

// Game is a played game, for standings.
type Game struct {
	A, B    int
	Outcome Outcome // for A
	// PointsA and PointsB are the in-game points, the last tie-break.
	PointsA, PointsB int
}
