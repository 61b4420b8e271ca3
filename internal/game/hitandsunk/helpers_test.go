package hitandsunk

import (
	"math/rand"
	"testing"
)

// testShip returns an intact ship of class st with its bow at (x, y).
func testShip(id int, st ShipType, x, y, facing int) *Ship {
	s := &Ship{ID: id, Type: st, X: x, Y: y, Facing: facing, Hull: make([]bool, st.Length), Mines: st.Mines}
	for i := range s.Hull {
		s.Hull[i] = true
	}
	return s
}

// testGame builds a size×size game holding exactly these ships (seats are
// their IDs), with every ship's turn allowance set as at the start of a turn.
func testGame(size int, ships ...*Ship) *Game {
	seats := 0
	for _, s := range ships {
		if s.ID+1 > seats {
			seats = s.ID + 1
		}
	}
	g := &Game{Size: size, Round: 1, rng: rand.New(rand.NewSource(1)), grid: make([]cell, size*size), seats: make([]*Ship, seats)}
	for _, s := range ships {
		g.seats[s.ID] = s
		g.order = append(g.order, s)
		s.Actions, s.Moves, s.Shots = 1, s.Type.Moves, s.Type.Shots
	}
	g.redraw()
	return g
}

func (g *Game) addMine(x, y int) { g.set(x, y, cell{kind: cellMine}) }

// damaged sets a ship's hull from a string of 1 (intact) and 0.
func damaged(s *Ship, hull string) *Ship {
	for i := range s.Hull {
		s.Hull[i] = hull[i] == '1'
	}
	return s
}

func underwater(s *Ship) *Ship { s.Underwater = true; return s }

func shielded(s *Ship) *Ship { s.Shield = true; return s }

func wantHull(t *testing.T, g *Game, id int, want string) {
	t.Helper()
	if got := hullString(g.Ship(id)); got != want {
		t.Errorf("ship %d hull = %s, want %s", id, got, want)
	}
}

func wantPos(t *testing.T, g *Game, id, x, y, facing int) {
	t.Helper()
	s := g.Ship(id)
	if s.X != x || s.Y != y || s.Facing != facing {
		t.Errorf("ship %d at (%d,%d) facing %d, want (%d,%d) facing %d", id, s.X, s.Y, s.Facing, x, y, facing)
	}
}

func wantInt(t *testing.T, what string, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %d, want %d", what, got, want)
	}
}

func wantBool(t *testing.T, what string, got, want bool) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func hasEvent(res TurnResult, kind string) bool {
	for _, e := range res.Events {
		if e.Kind == kind {
			return true
		}
	}
	return false
}
