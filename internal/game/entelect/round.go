package entelect

import (
	"errors"
	"fmt"
)

// Outcome tells what became of each player's command in a round.
type Outcome struct {
	// Evaluated is false for a player who had no command (killed) or whose
	// command was skipped because the other failed first in phase 1.
	Evaluated [2]bool
	// Errs holds why an evaluated command failed; nil when it succeeded.
	Errs [2]error
	// Killed marks the players who lost their last ship this round.
	Killed [2]bool
}

// errNoPlacement is the phase-1 failure of anything but a placement.
var errNoPlacement = errors.New("ships must be placed in phase 1")

// StartTurn applies the harness checks at the start of player p's turn
// (§6): a streak of 20 DoNothings or 5 failed placements kills the player,
// whose points drop to 0 and whose ship cells all take a shot. It reports
// whether the player may still play this round.
func (s *State) StartTurn(p int) bool {
	pl := &s.Players[p]
	if pl.Killed {
		return false
	}
	switch {
	case pl.DoNothings >= maxDoNothings:
		pl.KillReason = fmt.Sprintf("killed after %d DoNothing commands in a row", pl.DoNothings)
	case pl.FailedPlacements >= maxFailedPlacements:
		pl.KillReason = fmt.Sprintf("killed after %d failed ship placements", pl.FailedPlacements)
	default:
		return true
	}
	for _, sh := range pl.Ships {
		if !sh.HasCells {
			continue
		}
		for _, c := range sh.cells[:sh.Type.Length()] {
			if pl.Map[c].Shielded {
				pl.Map[c].ShieldHit = true
			} else {
				pl.Map[c].Hit = true
			}
		}
	}
	s.changed[p] = allShips
	pl.Killed = true
	pl.Points = 0
	return false
}

// Step processes one round (§8). has[p] is false for a player who has no
// command this round (StartTurn returned false). The round number goes up
// by one and the phase becomes 2 after a successful placement round.
func (s *State) Step(cmds [2]Command, has [2]bool) Outcome {
	var out Outcome
	for p := range cmds {
		if !has[p] {
			continue
		}
		if cmds[p].Code == DoNothing {
			s.Players[p].DoNothings++
		} else {
			s.Players[p].DoNothings = 0
		}
	}
	placed := false
	if s.Phase == 1 {
		placed = s.placementRound(cmds, has, &out)
	} else {
		s.deactivateShields()
		first := 0
		if cmds[1].Code == PlaceShield && cmds[0].Code != PlaceShield {
			first = 1
		}
		for _, p := range [2]int{first, 1 - first} {
			if has[p] {
				out.Evaluated[p] = true
				out.Errs[p] = s.apply(p, cmds[p])
			}
		}
	}
	s.destroyShips()
	if s.Phase == 2 {
		e := sizes[s.Size].energy
		s.Players[0].Energy += e
		s.Players[1].Energy += e
		s.chargeShields()
	}
	for p := range s.Players {
		if s.ShipsRemaining(p) == 0 {
			s.Players[1-p].Points += pointsKilled
			s.Players[p].Killed = true
			out.Killed[p] = true
		}
	}
	if placed {
		s.Phase = 2
	}
	s.Round++
	return out
}

// placementRound processes phase-1 commands, A then B; the first failure
// voids the round and clears both maps (§2). It reports success.
func (s *State) placementRound(cmds [2]Command, has [2]bool, out *Outcome) bool {
	for p := range cmds {
		if !has[p] {
			continue
		}
		out.Evaluated[p] = true
		cmd := cmds[p]
		var err error
		if cmd.Code == PlaceShips {
			err = s.place(p, cmd.Ships)
		} else {
			err = errNoPlacement
		}
		s.record(p, cmd, err)
		if err != nil {
			out.Errs[p] = err
			s.Players[p].FailedPlacements++
			s.clearMap(0)
			s.clearMap(1)
			return false
		}
	}
	return true
}

// apply processes one phase-2 command of player p and records it.
func (s *State) apply(p int, cmd Command) error {
	var err error
	switch cmd.Code {
	case DoNothing:
	case PlaceShips:
		err = errPhase2Place
	case PlaceShield:
		err = s.placeShield(p, cmd.X, cmd.Y)
	default:
		err = s.fire(p, cmd)
	}
	s.record(p, cmd, err)
	return err
}

// record updates the roundCommand.json view of player p's last command.
// DoNothing and PlaceShip keep the previous centre point (§3.4).
func (s *State) record(p int, cmd Command, err error) {
	m := &s.Players[p].Move
	m.Issued, m.HasIssued = cmd.Code, true
	m.Successful = err == nil && !(s.Phase == 1 && cmd.Code == DoNothing)
	switch cmd.Code {
	case DoNothing:
	case PlaceShips:
		m.PlaceText, m.HasPlace = cmd.PlaceText, true
	default:
		m.CenterX, m.CenterY = cmd.X, cmd.Y
	}
}

// destroyShips flags every ship whose cells are all hit (§8 step 3).
func (s *State) destroyShips() {
	for p := range s.Players {
		mask := s.changed[p]
		s.changed[p] = 0
		pl := &s.Players[p]
		for t := range pl.Ships {
			if mask&(1<<t) == 0 {
				continue
			}
			pl.Ships[t].Destroyed = s.sunk(p, &pl.Ships[t])
		}
	}
}
