package entelect

import (
	"errors"
	"fmt"
)

// offset is a target cell relative to a weapon's centre.
type offset struct{ dx, dy int8 }

// patterns lists the cells each multi-cell weapon hits (§7). Off-map
// targets are dropped silently.
var patterns = [...][]offset{
	DoubleShotVertical:   {{0, -1}, {0, 1}},
	DoubleShotHorizontal: {{-1, 0}, {1, 0}},
	CornerShot:           {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}},
	CrossShotDiagonal:    {{0, 0}, {-1, -1}, {-1, 1}, {1, -1}, {1, 1}},
	CrossShotHorizontal:  {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}},
}

// landShot lands one shot of player p on the opponent's cell idx (§7
// "Landing a shot on one cell"). A shielded cell only records the absorbed
// shot. A newly damaged ship cell scores 10, and 30 more when it completes
// a ship not yet flagged destroyed (the flags are those of the round's
// start). The seeker missile earns the sinking bonus too (policy §14.4).
func (s *State) landShot(p, idx int) {
	opp := &s.Players[1-p]
	c := &opp.Map[idx]
	if c.Shielded {
		c.ShieldHit = true
		return
	}
	wasHit := c.Hit
	c.Hit = true
	if !c.Occupied || wasHit {
		return
	}
	s.changed[1-p] |= 1 << c.ship
	pl := &s.Players[p]
	pl.ShotsHit++
	pl.Points += pointsHit
	if pl.FirstShotLanded == noShot {
		pl.FirstShotLanded = s.Round
	}
	sh := &opp.Ships[c.ship]
	if !sh.Destroyed && s.sunk(1-p, sh) {
		pl.Points += pointsSunk
	}
}

// sunk reports whether every cell of a ship of player q is hit; ships never
// placed have no cells and are never sunk.
func (s *State) sunk(q int, sh *Ship) bool {
	if !sh.HasCells {
		return false
	}
	m := &s.Players[q].Map
	for _, c := range sh.cells[:sh.Type.Length()] {
		if !m[c].Hit {
			return false
		}
	}
	return true
}

// anyAfloat reports whether player p has a ship not flagged destroyed.
func (s *State) anyAfloat(p int) bool {
	for _, sh := range s.Players[p].Ships {
		if !sh.Destroyed {
			return true
		}
	}
	return false
}

// Errors of well-formed commands that fail during processing. A failed
// command has no effect and costs nothing (§1).
var (
	errNotPlaced     = errors.New("all your ships must be placed before you are allowed to shoot")
	errOutOfBounds   = errors.New("coordinates are out of bounds")
	errShieldActive  = errors.New("shield is already active")
	errShieldCharges = errors.New("shield has no charges")
	errNoShips       = errors.New("no ships left to fire with")
	errPhase2Place   = errors.New("ships cannot be placed again in phase 2")
)

// fire applies a fire command (codes 1 to 7) of player p.
func (s *State) fire(p int, cmd Command) error {
	pl := &s.Players[p]
	if !s.allPlaced(p) {
		return errNotPlaced
	}
	if t := cmd.Code.weaponShip(); t >= 0 {
		if pl.Ships[t].Destroyed {
			return fmt.Errorf("%s has been destroyed, its %s is unavailable", t, ships[t].weapon)
		}
	} else if !s.anyAfloat(p) {
		return errNoShips
	}
	cost := s.WeaponCost(cmd.Code)
	if pl.Energy < cost {
		return fmt.Errorf("not enough energy: %d needed, %d available", cost, pl.Energy)
	}
	switch cmd.Code {
	case FireShot:
		if !s.onMap(cmd.X, cmd.Y) {
			return errOutOfBounds
		}
		s.landShot(p, s.index(cmd.X, cmd.Y))
	case SeekerMissile:
		idx, ok := s.seekerTarget(1-p, cmd.X, cmd.Y)
		if !ok {
			return errOutOfBounds
		}
		s.landShot(p, idx)
	default:
		for _, o := range patterns[cmd.Code] {
			x, y := cmd.X+int(o.dx), cmd.Y+int(o.dy)
			if s.onMap(x, y) {
				s.landShot(p, s.index(x, y))
			}
		}
	}
	pl.Energy -= cost
	pl.ShotsFired++
	return nil
}

// seekerTarget picks the seeker missile's cell on player q's map (§7): the
// nearest occupied, unhit, unshielded cell within distance 2 of the centre,
// ties to the smaller x then y; otherwise the centre itself if on the map.
func (s *State) seekerTarget(q, cx, cy int) (int, bool) {
	m := &s.Players[q].Map
	best, bestD := -1, 5
	for x := cx - 2; x <= cx+2; x++ {
		for y := cy - 2; y <= cy+2; y++ {
			if !s.onMap(x, y) {
				continue
			}
			d := (x-cx)*(x-cx) + (y-cy)*(y-cy)
			if d >= bestD {
				continue
			}
			c := &m[s.index(x, y)]
			if c.Occupied && !c.Hit && !c.Shielded {
				best, bestD = s.index(x, y), d
			}
		}
	}
	if best >= 0 {
		return best, true
	}
	if !s.onMap(cx, cy) {
		return 0, false
	}
	return s.index(cx, cy), true
}

// placeShield applies a PlaceShield command of player p (§7): it needs a
// charge and an inactive shield, costs no energy and covers the square of
// the current radius around the centre, clipped to the map.
func (s *State) placeShield(p, cx, cy int) error {
	pl := &s.Players[p]
	sh := &pl.Shield
	if sh.Active {
		return errShieldActive
	}
	if sh.Charges == 0 {
		return errShieldCharges
	}
	for x := cx - sh.Radius; x <= cx+sh.Radius; x++ {
		for y := cy - sh.Radius; y <= cy+sh.Radius; y++ {
			if s.onMap(x, y) {
				pl.Map[s.index(x, y)].Shielded = true
			}
		}
	}
	sh.RoundLastUsed = s.Round
	sh.Active = true
	sh.CenterX, sh.CenterY = cx, cy
	return nil
}

// deactivateShields spends one charge of every active shield at the start
// of a phase-2 round and removes the shields that run out (§7).
func (s *State) deactivateShields() {
	for i := range s.Players {
		pl := &s.Players[i]
		sh := &pl.Shield
		if !sh.Active {
			continue
		}
		sh.Charges--
		if sh.Charges > 0 {
			continue
		}
		sh.Active = false
		sh.RoundLastUsed = s.Round
		sh.Radius = 0
		sh.Charges = 0
		for c := range pl.Map[:s.N*s.N] {
			pl.Map[c].Shielded = false
			pl.Map[c].ShieldHit = false
		}
	}
}

// chargeShields adds a charge to every inactive shield every 7 rounds since
// its last use, growing its radius up to the map's maximum (§7).
func (s *State) chargeShields() {
	for i := range s.Players {
		sh := &s.Players[i].Shield
		if sh.Active {
			continue
		}
		d := s.Round - sh.RoundLastUsed
		if d != 0 && d%shieldChargeTime == 0 {
			sh.Charges++
			sh.Radius = min(sh.Radius+1, sh.MaxRadius)
		}
	}
}
