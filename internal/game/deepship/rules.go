// Package deepship hosts the In Deep Ship tournament rule set (2025): an
// 11-column by 9-row board, a fleet of 2, 3, 3, 4 and 5, and one long-lived
// process per contestant per round of three games, talking in lines over
// stdin and stdout.
//
// rules.go is the pure game: no I/O, no clock, no randomness of its own.
package deepship

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Board dimensions: letters A–I are rows, numbers 0–10 columns.
const (
	Cols = 11
	Rows = 9
)

// fleetSizes is the fleet every player places, sorted.
var fleetSizes = [...]int{2, 3, 3, 4, 5}

// Coord is one cell; its text form is the row letter then the column number.
type Coord struct {
	Row, Col int
}

// String is the protocol form, for example "A0" or "I10".
func (c Coord) String() string {
	return string(rune('A'+c.Row)) + strconv.Itoa(c.Col)
}

// OnBoard reports whether c is one of the 99 cells.
func (c Coord) OnBoard() bool {
	return c.Row >= 0 && c.Row < Rows && c.Col >= 0 && c.Col < Cols
}

// ParseCoord reads a coordinate as the original simulator did: one
// uppercase letter A–Z, then a decimal number (a leading + is allowed, as
// Zig's integer parser allows it). Letters past I and numbers past 10 parse
// but are off the board.
func ParseCoord(s string) (Coord, error) {
	if len(s) < 2 || s[0] < 'A' || s[0] > 'Z' {
		return Coord{}, fmt.Errorf("coordinate %q: want an uppercase letter then a number, like C7", s)
	}
	num := strings.TrimPrefix(s[1:], "+")
	if num == "" || len(num) > 4 || strings.Trim(num, "0123456789") != "" {
		return Coord{}, fmt.Errorf("coordinate %q: want an uppercase letter then a number, like C7", s)
	}
	col, _ := strconv.Atoi(num)
	return Coord{Row: int(s[0] - 'A'), Col: col}, nil
}

// Ship is one placed ship.
type Ship struct {
	Size     int
	Vertical bool
	At       Coord
	Cells    []Coord
}

// ParsePlacement reads a `place-ships;S;O;C;…` line: five size;orientation;
// coordinate triples in any order whose sizes are 2, 3, 3, 4 and 5, every
// cell on the board and no two ships overlapping (touching is allowed).
// There is no trailing `;`.
func ParsePlacement(line string) ([]Ship, error) {
	fields := strings.Split(line, ";")
	if fields[0] != "place-ships" {
		return nil, errors.New("not a place-ships line")
	}
	fields = fields[1:]
	if len(fields)%3 != 0 || len(fields) == 0 {
		return nil, fmt.Errorf("want size;orientation;coordinate triples with no trailing ';', got %d fields", len(fields))
	}
	if len(fields)/3 != len(fleetSizes) {
		return nil, fmt.Errorf("want %d ships, got %d", len(fleetSizes), len(fields)/3)
	}
	ships := make([]Ship, 0, len(fleetSizes))
	for i := 0; i < len(fields); i += 3 {
		size, err := strconv.ParseUint(fields[i], 10, 8)
		if err != nil {
			return nil, fmt.Errorf("ship %d: size %q is not a number", i/3+1, fields[i])
		}
		s := Ship{Size: int(size)}
		switch fields[i+1] {
		case "horizontal":
		case "vertical":
			s.Vertical = true
		default:
			return nil, fmt.Errorf("ship %d: orientation %q is not horizontal or vertical", i/3+1, fields[i+1])
		}
		if s.At, err = ParseCoord(fields[i+2]); err != nil {
			return nil, fmt.Errorf("ship %d: %w", i/3+1, err)
		}
		ships = append(ships, s)
	}
	slices.SortStableFunc(ships, func(a, b Ship) int { return a.Size - b.Size })
	var taken [Rows][Cols]bool
	for i := range ships {
		s := &ships[i]
		if s.Size != fleetSizes[i] {
			return nil, fmt.Errorf("ship sizes must be 2, 3, 3, 4 and 5, got %s", sizesOf(ships))
		}
		for k := range s.Size {
			c := s.At
			if s.Vertical {
				c.Row += k
			} else {
				c.Col += k
			}
			if !c.OnBoard() {
				return nil, fmt.Errorf("ship of size %d at %s leaves the board", s.Size, s.At)
			}
			if taken[c.Row][c.Col] {
				return nil, fmt.Errorf("ship of size %d at %s overlaps another ship at %s", s.Size, s.At, c)
			}
			taken[c.Row][c.Col] = true
			s.Cells = append(s.Cells, c)
		}
	}
	return ships, nil
}

func sizesOf(ships []Ship) string {
	parts := make([]string, len(ships))
	for i, s := range ships {
		parts[i] = strconv.Itoa(s.Size)
	}
	return strings.Join(parts, ", ")
}

// Outcome is what a shot did.
type Outcome int

// Shot outcomes.
const (
	Miss Outcome = iota + 1
	Hit
	Sink
)

// Result is a shot's result; Size is the sunk ship's size.
type Result struct {
	Outcome Outcome
	Size    int
}

// String is the protocol form: miss, hit or sink;<size>.
func (r Result) String() string {
	switch r.Outcome {
	case Hit:
		return "hit"
	case Sink:
		return "sink;" + strconv.Itoa(r.Size)
	}
	return "miss"
}

// Board is one player's waters as the opponent fires at them.
type Board struct {
	ships []Ship
	// fired holds the result of every cell fired at, repeated for a re-fire.
	fired [Rows][Cols]Result
}

// NewBoard returns a board holding ships (from ParsePlacement).
func NewBoard(ships []Ship) *Board {
	return &Board{ships: ships}
}

// Fire applies a shot at an on-board cell. A cell fired at before returns
// its earlier result again and changes nothing; repeat reports that.
func (b *Board) Fire(c Coord) (res Result, repeat bool) {
	if prev := b.fired[c.Row][c.Col]; prev.Outcome != 0 {
		return prev, true
	}
	res = Result{Outcome: Miss}
	for _, s := range b.ships {
		if !slices.Contains(s.Cells, c) {
			continue
		}
		res.Outcome = Hit
		b.fired[c.Row][c.Col] = res
		if b.sunk(s) {
			res = Result{Outcome: Sink, Size: s.Size}
		}
		break
	}
	b.fired[c.Row][c.Col] = res
	return res, false
}

func (b *Board) sunk(s Ship) bool {
	for _, c := range s.Cells {
		if b.fired[c.Row][c.Col].Outcome == 0 || b.fired[c.Row][c.Col].Outcome == Miss {
			return false
		}
	}
	return true
}

// AllSunk reports whether every ship on the board has sunk.
func (b *Board) AllSunk() bool {
	return b.ShipsLeft() == 0
}

// ShipsLeft counts the ships still afloat.
func (b *Board) ShipsLeft() int {
	n := 0
	for _, s := range b.ships {
		if !b.sunk(s) {
			n++
		}
	}
	return n
}

// Ships returns the placed ships.
func (b *Board) Ships() []Ship { return b.ships }

// Score is a contestant's tally over a round.
type Score struct {
	Wins      int `json:"wins"`
	Losses    int `json:"losses"`
	Penalties int `json:"penalties"`
}

// Points is the original's score: 10 × (wins − losses) − penalties.
func (s Score) Points() int {
	return 10*(s.Wins-s.Losses) - s.Penalties
}
