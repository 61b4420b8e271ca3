package hitandsunk

import (
	"fmt"
	"math/rand"
)

// Rounds is the length of a game.
const Rounds = 100

// MaxShips is the largest free-for-all the platform runs.
const MaxShips = 30

// cellKind is what the drawn grid holds in one cell.
type cellKind uint8

const (
	cellEmpty cellKind = iota
	cellMine
	cellShip  // a live ship's segment (damaged or not); owner says whose
	cellWreck // a sunk ship's segment: an obstacle for the rest of the game
)

type cell struct {
	kind  cellKind
	owner int
}

// Game is the pure state of one game: no I/O, all randomness from the
// seeded source. Like the original controller it keeps a drawn grid that is
// redrawn from the ships after every action; explosions read that grid, so
// a ship moving onto a mine is hit where it stood before the move.
type Game struct {
	// Size is the side of the square grid: 30 + the number of seats.
	Size  int
	Round int

	rng   *rand.Rand
	grid  []cell
	seats []*Ship // by seat; nil for a seat without a ship
	order []*Ship // play order, reshuffled every round
	// events collects what the current turn did, for the replay;
	// rejects counts the turn's rejected actions (see maxRejectEvents).
	events  []Event
	rejects int
}

// NewGame places one ship per seat whose choice is a valid class (1 to 5);
// seats with another choice have no ship but still count in the grid size.
// Ships are placed in seat order at random positions and facings, retried
// until they fit without overlapping.
func NewGame(rng *rand.Rand, choices []int) *Game {
	size := 30 + len(choices)
	g := &Game{Size: size, rng: rng, grid: make([]cell, size*size), seats: make([]*Ship, len(choices))}
	for id, choice := range choices {
		st, err := ShipTypeByChoice(choice)
		if err != nil {
			continue
		}
		var x, y, facing int
		for {
			x, y, facing = rng.Intn(size), rng.Intn(size), rng.Intn(4)
			if g.fits(x, y, facing, st.Length, -1, false) {
				break
			}
		}
		s := &Ship{ID: id, Type: st, X: x, Y: y, Facing: facing, Hull: make([]bool, st.Length), Mines: st.Mines}
		for i := range s.Hull {
			s.Hull[i] = true
		}
		g.seats[id] = s
		g.order = append(g.order, s)
		g.redraw()
	}
	return g
}

// Ship returns the ship of seat id, or nil if that seat has none.
func (g *Game) Ship(id int) *Ship {
	if id < 0 || id >= len(g.seats) {
		return nil
	}
	return g.seats[id]
}

// Ships returns the ships in seat order.
func (g *Game) Ships() []*Ship {
	out := make([]*Ship, 0, len(g.order))
	for _, s := range g.seats {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// Mines returns the positions of the mines on the grid, row by row.
func (g *Game) Mines() [][2]int {
	var out [][2]int
	for i, c := range g.grid {
		if c.kind == cellMine {
			out = append(out, [2]int{i % g.Size, i / g.Size})
		}
	}
	return out
}

// Alive counts the ships still afloat.
func (g *Game) Alive() int {
	n := 0
	for _, s := range g.order {
		if s.Alive() {
			n++
		}
	}
	return n
}

// Over reports whether the game has ended: at most one ship afloat, checked
// by the controller before every round and after every turn.
func (g *Game) Over() bool {
	return g.Alive() <= 1
}

// StartRound advances the round counter and reshuffles the play order. It
// returns the seats in play order, sunk ships included (they are skipped).
func (g *Game) StartRound() []int {
	g.Round++
	g.rng.Shuffle(len(g.order), func(i, j int) { g.order[i], g.order[j] = g.order[j], g.order[i] })
	ids := make([]int, len(g.order))
	for i, s := range g.order {
		ids[i] = s.ID
	}
	return ids
}

// BeginTurn resets the ship's allowance, ticks its cooldown and surfaces a
// submarine that has been under for its maximum, before its request is built.
func (g *Game) BeginTurn(id int) {
	s := g.seats[id]
	s.Actions = 1
	s.Moves = s.Type.Moves
	s.Shots = s.Type.Shots
	s.Shooting = false
	if s.Cooldown > 0 {
		s.Cooldown--
	}
	g.events = nil
	if s.Underwater {
		s.UnderTurns++
		if s.UnderTurns > maxUnderwater {
			s.Underwater = false
			s.Cooldown = skillCooldown
			g.emit(Event{Kind: "surface", Ship: id, X: s.X, Y: s.Y, Note: "dive limit reached"})
		}
	}
}

// at returns the drawn cell at (x, y); the caller checks bounds.
func (g *Game) at(x, y int) cell {
	return g.grid[y*g.Size+x]
}

func (g *Game) set(x, y int, c cell) {
	g.grid[y*g.Size+x] = c
}

func (g *Game) onGrid(x, y int) bool {
	return x >= 0 && y >= 0 && x < g.Size && y < g.Size
}

// fits reports whether a ship of the given length can lie with its bow at
// (x, y): on the grid, over empty cells, cells of ship own (-1 for none)
// and, if mines is set, mines.
func (g *Game) fits(x, y, facing, length, own int, mines bool) bool {
	for i := 0; i < length; i++ {
		cx, cy := cellOf(x, y, facing, i)
		if !g.onGrid(cx, cy) {
			return false
		}
		c := g.at(cx, cy)
		free := c.kind == cellEmpty || (mines && c.kind == cellMine) || (c.kind == cellShip && c.owner == own)
		if !free {
			return false
		}
	}
	return true
}

// redraw clears the live ships from the grid and draws every ship again: a
// live one as its owner, a sunk one as wreckage. Wreckage is never cleared.
func (g *Game) redraw() {
	for i, c := range g.grid {
		if c.kind == cellShip {
			g.grid[i] = cell{}
		}
	}
	for _, s := range g.order {
		kind := cellShip
		if !s.Alive() {
			kind = cellWreck
		}
		for i := range s.Hull {
			x, y := s.Cell(i)
			g.set(x, y, cell{kind: kind, owner: s.ID})
		}
	}
}

// strike resolves a shot, ram or blast reaching the drawn cell (x, y). It
// returns the live ship drawn there and the segment struck, or nil when the
// cell holds no ship or the hit was absorbed by a shield (spent, whatever
// the segment's state) or dodged by a submerged ship (only shots and rams:
// mines hurt submarines).
func (g *Game) strike(by *Ship, x, y int, blast bool) (*Ship, int) {
	c := g.at(x, y)
	if c.kind != cellShip {
		return nil, -1
	}
	t := g.seats[c.owner]
	if t.Shield {
		t.Shield = false
		g.emit(Event{Kind: "absorb", Ship: by.ID, Target: ptr(t.ID), X: x, Y: y})
		return nil, -1
	}
	if t.Underwater && !blast {
		g.emit(Event{Kind: "dodge", Ship: by.ID, Target: ptr(t.ID), X: x, Y: y})
		return nil, -1
	}
	return t, t.SegmentAt(x, y)
}

// destroy knocks out segment i of t if it is intact, crediting by with the
// hit and, when it was t's last, with the sinking (the controller's
// computeHit, self-inflicted damage included).
func (g *Game) destroy(by, t *Ship, i int) bool {
	if i < 0 || i >= len(t.Hull) || !t.Alive() || !t.Hull[i] {
		return false
	}
	t.Hull[i] = false
	by.Hits++
	t.Damage++
	x, y := t.Cell(i)
	g.emit(Event{Kind: "hit", Ship: by.ID, Target: ptr(t.ID), Segment: ptr(i), X: x, Y: y})
	if !t.Alive() {
		by.Sunken++
		g.emit(Event{Kind: "sink", Ship: by.ID, Target: ptr(t.ID), X: t.X, Y: t.Y})
	}
	return true
}

// explode detonates the mine at (x, y), triggered by by: the cell is cleared,
// then the 3×3 block around it is visited row by row from the north-west;
// other mines detonate at once (chains), live ship cells are hit, shields
// absorbing one cell each, submerged or not.
func (g *Game) explode(by *Ship, x, y int) {
	g.set(x, y, cell{})
	g.emit(Event{Kind: "explode", Ship: by.ID, X: x, Y: y})
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			cx, cy := x+dx, y+dy
			if !g.onGrid(cx, cy) {
				continue
			}
			switch g.at(cx, cy).kind {
			case cellMine:
				g.explode(by, cx, cy)
			case cellShip:
				if t, i := g.strike(by, cx, cy, true); t != nil {
					g.destroy(by, t, i)
				}
			}
		}
	}
}

func (g *Game) emit(e Event) {
	g.events = append(g.events, e)
}

func ptr(i int) *int { return &i }

// Event is one thing that happened during a turn, as the replay records it.
// Ship is the acting ship (for hits and sinkings: the one credited); Target
// and Segment are set when a ship was affected.
type Event struct {
	Kind    string `json:"kind"`
	Ship    int    `json:"ship"`
	Target  *int   `json:"target,omitempty"`
	Segment *int   `json:"segment,omitempty"`
	X       int    `json:"x"`
	Y       int    `json:"y"`
	Facing  *int   `json:"facing,omitempty"`
	Note    string `json:"note,omitempty"`
}

func (e Event) String() string {
	s := fmt.Sprintf("%s ship=%d at=(%d,%d)", e.Kind, e.Ship, e.X, e.Y)
	if e.Target != nil {
		s += fmt.Sprintf(" target=%d", *e.Target)
	}
	if e.Segment != nil {
		s += fmt.Sprintf(" segment=%d", *e.Segment)
	}
	if e.Note != "" {
		s += " (" + e.Note + ")"
	}
	return s
}
