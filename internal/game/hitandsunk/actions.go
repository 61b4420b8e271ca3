package hitandsunk

import "fmt"

// TurnResult is what one ship's action string did.
type TurnResult struct {
	// Events lists the effects in order.
	Events []Event
	// Aborted is set when a malformed F or N dropped the rest of the string.
	Aborted bool
}

// Apply runs a ship's reply for this turn. The scan and shield flags are
// cleared first (they lasted until this reply), then the string is read
// left to right and each action takes effect at once. Unknown characters
// are waits. Apply never fails: invalid actions are logged as rejected.
func (g *Game) Apply(id int, reply string) TurnResult {
	s := g.seats[id]
	s.Scan = false
	s.Shield = false
	g.rejects = 0
	rs := []rune(reply)
	aborted := false
	// A ship that sinks itself during its turn does nothing more.
	for i := 0; i < len(rs) && s.Alive(); i++ {
		switch rs[i] {
		case 'M':
			g.step(s, true)
		case 'B':
			g.step(s, false)
		case 'K':
			g.rotate(s, 1)
		case 'C':
			g.rotate(s, -1)
		case 'A':
			g.ram(s)
		case 'F', 'N':
			// The controller takes the next four characters before checking
			// anything; fewer than four throws and drops the rest.
			if i+5 > len(rs) {
				g.reject(s, string(rs[i]), "fewer than 4 characters of target")
				aborted = true
				break
			}
			params := rs[i+1 : i+5]
			ok := true
			if rs[i] == 'F' {
				ok = g.fire(s, params)
			} else {
				ok = g.mine(s, params)
			}
			i += 4
			if !ok {
				aborted = true
			}
		case 'S':
			g.scan(s)
		case 'D':
			g.shield(s)
		case 'R':
			g.repair(s)
		case 'P':
			g.plunge(s)
		}
		if aborted {
			g.emit(Event{Kind: "abort", Ship: s.ID, X: s.X, Y: s.Y, Note: "malformed target: rest of the string dropped"})
			break
		}
	}
	if n := g.rejects - maxRejectEvents; n > 0 {
		g.emit(Event{Kind: "reject", Ship: s.ID, X: s.X, Y: s.Y, Note: fmt.Sprintf("%d more rejected actions left out of the replay", n)})
	}
	g.redraw()
	res := TurnResult{Events: g.events, Aborted: aborted}
	g.events = nil
	return res
}

// maxRejectEvents bounds the rejected actions one turn records. A reply
// is up to 64 KiB of actions and each rejected one was an event: a reply
// of 65,536 "M" added 4 MB to the replay every turn. The rest are counted
// in one last event; an action that has an effect is always recorded.
const maxRejectEvents = 16

func (g *Game) reject(s *Ship, action, why string) {
	g.rejects++
	if g.rejects > maxRejectEvents {
		return
	}
	g.emit(Event{Kind: "reject", Ship: s.ID, X: s.X, Y: s.Y, Note: action + ": " + why})
}

// step moves the ship one cell forward (M) or back (B). It costs a move even
// when blocked. The entered cell must be empty water or a mine; a mine
// detonates with the grid still showing the ship where it was, but hull
// indices taken from its new position.
func (g *Game) step(s *Ship, ahead bool) {
	name := "B"
	if ahead {
		name = "M"
	}
	if s.Moves <= 0 {
		g.reject(s, name, "no moves left")
		return
	}
	s.Moves--
	dx, dy := forward(s.Facing)
	var tx, ty, nx, ny int
	if ahead {
		tx, ty = s.X+dx, s.Y+dy
		nx, ny = tx, ty
	} else {
		sx, sy := s.Cell(len(s.Hull) - 1)
		tx, ty = sx-dx, sy-dy
		nx, ny = s.X-dx, s.Y-dy
	}
	if !g.onGrid(tx, ty) {
		g.reject(s, name, "edge of the grid")
		return
	}
	c := g.at(tx, ty)
	if c.kind != cellEmpty && c.kind != cellMine {
		g.reject(s, name, "blocked")
		return
	}
	s.X, s.Y = nx, ny
	kind := "back"
	if ahead {
		kind = "move"
	}
	g.emit(Event{Kind: kind, Ship: s.ID, X: s.X, Y: s.Y, Facing: ptr(s.Facing)})
	if c.kind == cellMine {
		g.explode(s, tx, ty)
	}
	g.redraw()
}

// rotate pivots the ship on its bow by turn quarter turns (+1 clockwise for
// K, −1 for C). It costs a move even when blocked; a Destroyer may rotate
// with no moves left (its moves go negative). Every cell of the new
// footprint must be on the grid and empty, a mine or its own; mines there
// detonate from the bow outwards.
func (g *Game) rotate(s *Ship, turn int) {
	name := "K"
	if turn < 0 {
		name = "C"
	}
	if s.Moves <= 0 && s.Type != Destroyer {
		g.reject(s, name, "no moves left")
		return
	}
	s.Moves--
	facing := (s.Facing + turn + 4) % 4
	if !g.fits(s.X, s.Y, facing, len(s.Hull), s.ID, true) {
		g.reject(s, name, "blocked")
		return
	}
	var mines [][2]int
	for i := range s.Hull {
		x, y := cellOf(s.X, s.Y, facing, i)
		if g.at(x, y).kind == cellMine {
			mines = append(mines, [2]int{x, y})
		}
	}
	s.Facing = facing
	g.emit(Event{Kind: "rotate", Ship: s.ID, X: s.X, Y: s.Y, Facing: ptr(facing)})
	for _, m := range mines {
		// An earlier blast of the same rotation may have set this mine off
		// already; the controller would blast its cell a second time.
		if g.at(m[0], m[1]).kind == cellMine {
			g.explode(s, m[0], m[1])
		}
	}
	g.redraw()
}

// ram strikes the cell ahead of the bow. It needs the full move allowance,
// spends all of it, and does not use the turn's action.
func (g *Game) ram(s *Ship) {
	if s.Underwater {
		g.reject(s, "A", "submerged")
		return
	}
	if s.Moves != s.Type.Moves {
		g.reject(s, "A", "a move was already used")
		return
	}
	s.Moves = 0
	dx, dy := forward(s.Facing)
	x, y := s.X+dx, s.Y+dy
	g.emit(Event{Kind: "ram", Ship: s.ID, X: x, Y: y})
	if !g.onGrid(x, y) {
		return
	}
	if t, i := g.strike(s, x, y, false); t != nil {
		g.destroy(s, t, i)
	}
	g.redraw()
}

// target decodes the four characters after F or N: a sign ('+' is positive,
// anything else negative) and one digit, for x then y. ok is false when a
// distance is not a digit, which in the controller throws.
func target(p []rune) (dx, dy int, ok bool) {
	if len(p) != 4 || !isDigit(p[1]) || !isDigit(p[3]) {
		return 0, 0, false
	}
	dx, dy = int(p[1]-'0'), int(p[3]-'0')
	if p[0] != '+' {
		dx = -dx
	}
	if p[2] != '+' {
		dy = -dy
	}
	return dx, dy, true
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// fire shoots at bow + offset. The first shot of a turn takes the action,
// later ones need shots left in the same volley; the shot and action are
// spent before the target is read. It returns false when the target is
// malformed (the rest of the string is dropped).
func (g *Game) fire(s *Ship, p []rune) bool {
	if s.Underwater {
		g.reject(s, "F", "submerged")
		return true
	}
	if !(s.Actions > 0 || (s.Shooting && s.Shots > 0)) {
		g.reject(s, "F", "no action or shot left")
		return true
	}
	s.Shooting = true
	s.Shots--
	s.Actions--
	s.ShotsFired++
	dx, dy, ok := target(p)
	if !ok {
		return false
	}
	x, y := s.X+dx, s.Y+dy
	g.emit(Event{Kind: "fire", Ship: s.ID, X: x, Y: y})
	if abs(dx) > s.Type.Range || abs(dy) > s.Type.Range {
		g.reject(s, "F", "out of range")
		return true
	}
	if !g.onGrid(x, y) {
		g.reject(s, "F", "off the grid")
		return true
	}
	before := s.Hits
	switch g.at(x, y).kind {
	case cellMine:
		g.explode(s, x, y)
	case cellShip:
		if t, i := g.strike(s, x, y, false); t != nil {
			g.destroy(s, t, i)
			if s.Type == Carrier {
				// Splash, as the challenge text describes it: the segments
				// on either side of the one struck, whatever its state.
				g.destroy(s, t, i-1)
				g.destroy(s, t, i+1)
			}
		}
	}
	if s.Hits > before {
		s.ShotsLanded++
	}
	g.redraw()
	return true
}

// mine drops a mine at bow + offset. It takes the action and a mine even if
// the drop then fails. The target must be empty water next to (8-neighbour)
// one of the ship's own cells. It returns false on a malformed target.
func (g *Game) mine(s *Ship, p []rune) bool {
	if s.Underwater {
		g.reject(s, "N", "submerged")
		return true
	}
	if s.Actions <= 0 {
		g.reject(s, "N", "no action left")
		return true
	}
	s.Actions--
	if s.Mines <= 0 {
		g.reject(s, "N", "no mines left")
		return true
	}
	s.Mines--
	dx, dy, ok := target(p)
	if !ok {
		return false
	}
	x, y := s.X+dx, s.Y+dy
	if !g.adjacent(s, x, y) {
		g.reject(s, "N", "not next to the ship")
		return true
	}
	if !g.onGrid(x, y) || g.at(x, y).kind != cellEmpty {
		g.reject(s, "N", "cell not empty water")
		return true
	}
	g.set(x, y, cell{kind: cellMine})
	g.emit(Event{Kind: "mine", Ship: s.ID, X: x, Y: y})
	return true
}

// adjacent reports whether (x, y) touches one of the ship's cells,
// diagonals included.
func (g *Game) adjacent(s *Ship, x, y int) bool {
	for i := range s.Hull {
		cx, cy := s.Cell(i)
		if abs(cx-x) <= 1 && abs(cy-y) <= 1 {
			return true
		}
	}
	return false
}

func (g *Game) scan(s *Ship) {
	if s.Underwater {
		g.reject(s, "S", "submerged")
		return
	}
	if s.Actions <= 0 {
		g.reject(s, "S", "no action left")
		return
	}
	s.Actions--
	s.Scan = true
	g.emit(Event{Kind: "scan", Ship: s.ID, X: s.X, Y: s.Y})
}

// shield raises the Battleship's shield until its next reply.
func (g *Game) shield(s *Ship) {
	switch {
	case s.Type != Battleship:
		g.reject(s, "D", "not a Battleship")
	case s.Cooldown > 0:
		g.reject(s, "D", "cooling down")
	case s.Actions <= 0:
		g.reject(s, "D", "no action left")
	default:
		s.Actions--
		s.Shield = true
		s.Cooldown = skillCooldown
		g.emit(Event{Kind: "shield", Ship: s.ID, X: s.X, Y: s.Y})
	}
}

// repair restores the Cruiser's destroyed segment nearest the bow. It needs
// the action unused but does not use it, and always sets the cooldown.
func (g *Game) repair(s *Ship) {
	switch {
	case s.Type != Cruiser:
		g.reject(s, "R", "not a Cruiser")
	case s.Cooldown > 0:
		g.reject(s, "R", "cooling down")
	case s.Actions <= 0:
		g.reject(s, "R", "no action left")
	default:
		s.Cooldown = skillCooldown
		for i, ok := range s.Hull {
			if !ok {
				s.Hull[i] = true
				g.emit(Event{Kind: "repair", Ship: s.ID, Segment: ptr(i), X: s.X, Y: s.Y})
				return
			}
		}
		g.reject(s, "R", "nothing to repair")
	}
}

// plunge dives (cooldown 0 needed) or surfaces (sets the cooldown) the
// Submarine; either takes the action.
func (g *Game) plunge(s *Ship) {
	switch {
	case s.Type != Submarine:
		g.reject(s, "P", "not a Submarine")
	case s.Actions <= 0:
		g.reject(s, "P", "no action left")
	case s.Underwater:
		s.Actions--
		s.Underwater = false
		s.Cooldown = skillCooldown
		g.emit(Event{Kind: "surface", Ship: s.ID, X: s.X, Y: s.Y})
	case s.Cooldown > 0:
		g.reject(s, "P", "cooling down")
	default:
		s.Actions--
		s.Underwater = true
		s.UnderTurns = 0
		g.emit(Event{Kind: "dive", Ship: s.ID, X: s.X, Y: s.Y})
	}
}
