package hitandsunk

import (
	"strconv"
	"strings"
)

// View geometry: a 19×19 window centred on the bow, of which only the
// inner 11×11 is visible without a scan.
const (
	viewRadius  = 9
	sightRadius = 5
	viewSide    = 2*viewRadius + 1
)

// Request builds the argument of ship id's turn, in the controller's field
// order: round;id;X,Y,facing;hull;moves,shots,mines,cooldown;
// hits,sunken,damage;underwater,shield,scan;MAP.
func (g *Game) Request(id int) string {
	s := g.seats[id]
	var b strings.Builder
	b.Grow(420)
	field := func(vals ...int) {
		for i, v := range vals {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(v))
		}
		b.WriteByte(';')
	}
	field(g.Round)
	field(id)
	field(s.X, s.Y, s.Facing)
	b.WriteString(hullString(s))
	b.WriteByte(';')
	field(s.Moves, s.Shots, s.Mines, s.Cooldown)
	field(s.Hits, s.Sunken, s.Damage)
	field(b2i(s.Underwater), b2i(s.Shield), b2i(s.Scan))
	b.WriteString(g.Map(id))
	return b.String()
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// Map is what ship id sees: 361 characters, row-major from the north row,
// index (dy+9)·19 + (dx+9) for the cell at bow + (dx, dy).
//
//	.  empty water, wreckage, or a submerged enemy when not scanning
//	M  mine          X  off the grid      U  beyond sight (no scan)
//	O  own cell      A/B  enemy segment intact/destroyed
//	C/D  submerged enemy segment intact/destroyed (scan only)
func (g *Game) Map(id int) string {
	s := g.seats[id]
	out := make([]byte, 0, viewSide*viewSide)
	for dy := -viewRadius; dy <= viewRadius; dy++ {
		for dx := -viewRadius; dx <= viewRadius; dx++ {
			out = append(out, g.seen(s, dx, dy))
		}
	}
	return string(out)
}

func (g *Game) seen(s *Ship, dx, dy int) byte {
	if !s.Scan && (abs(dx) > sightRadius || abs(dy) > sightRadius) {
		return 'U'
	}
	x, y := s.X+dx, s.Y+dy
	if !g.onGrid(x, y) {
		return 'X'
	}
	c := g.at(x, y)
	switch c.kind {
	case cellMine:
		return 'M'
	case cellShip:
		if c.owner == s.ID {
			return 'O'
		}
		t := g.seats[c.owner]
		i := t.SegmentAt(x, y)
		if i < 0 {
			return '.'
		}
		switch {
		case !t.Alive():
			return 'W'
		case t.Underwater && !s.Scan:
			return '.'
		case t.Underwater:
			return "DC"[b2i(t.Hull[i])]
		default:
			return "BA"[b2i(t.Hull[i])]
		}
	}
	// Empty water and, as in the controller, wreckage.
	return '.'
}
