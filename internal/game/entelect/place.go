package entelect

import (
	"errors"
	"fmt"
)

// clearMap resets player p's map before a placement: nothing occupied,
// nothing hit, every ship unplaced. Ships keep their last cells (§2).
func (s *State) clearMap(p int) {
	pl := &s.Players[p]
	s.changed[p] = allShips
	for c := range pl.Map[:s.N*s.N] {
		pl.Map[c].Occupied = false
		pl.Map[c].Hit = false
		pl.Map[c].ship = -1
	}
	for t := range pl.Ships {
		pl.Ships[t].Placed = false
	}
}

// shipCells computes the map indexes a ship placement covers, or reports
// that it leaves the map.
func (s *State) shipCells(sp ShipPlacement) ([5]int16, bool) {
	var out [5]int16
	dx, dy := sp.Dir.delta()
	x, y := sp.X, sp.Y
	for i := 0; i < sp.Type.Length(); i++ {
		if !s.onMap(x, y) {
			return out, false
		}
		out[i] = int16(s.index(x, y))
		x, y = x+dx, y+dy
	}
	return out, true
}

// place applies a PlaceShips command for player p (§2). It clears the map
// first; on failure ships placed before the failing line keep their new
// cells, as the original's one-by-one second pass leaves them.
func (s *State) place(p int, layout []ShipPlacement) error {
	s.clearMap(p)
	if len(layout) != int(numShips) {
		return fmt.Errorf("expected %d ships, got %d", numShips, len(layout))
	}
	// First pass of the original: every start point must be on the map and
	// the last ship must fit on the empty map.
	for _, sp := range layout {
		if !s.onMap(sp.X, sp.Y) {
			return fmt.Errorf("%s start point %d, %d is out of bounds", sp.Type, sp.X, sp.Y)
		}
	}
	if _, ok := s.shipCells(layout[len(layout)-1]); !ok {
		return errors.New("one or more ships could not be placed")
	}
	pl := &s.Players[p]
	for _, sp := range layout {
		sh := &pl.Ships[sp.Type]
		if sh.Placed {
			return fmt.Errorf("%s has already been placed", sp.Type)
		}
		cells, ok := s.shipCells(sp)
		if !ok {
			return fmt.Errorf("%s at %d, %d facing %s does not fit on the map", sp.Type, sp.X, sp.Y, sp.Dir)
		}
		for _, c := range cells[:sp.Type.Length()] {
			if pl.Map[c].Occupied {
				return fmt.Errorf("%s at %d, %d facing %s overlaps another ship", sp.Type, sp.X, sp.Y, sp.Dir)
			}
		}
		for _, c := range cells[:sp.Type.Length()] {
			pl.Map[c].Occupied = true
			pl.Map[c].ship = int8(sp.Type)
		}
		sh.cells, sh.HasCells, sh.Placed = cells, true, true
	}
	return nil
}

// allPlaced reports whether every ship of player p is placed.
func (s *State) allPlaced(p int) bool {
	for _, sh := range s.Players[p].Ships {
		if !sh.Placed {
			return false
		}
	}
	return true
}
