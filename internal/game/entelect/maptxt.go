package entelect

import (
	"strconv"
	"strings"
)

// MapText renders player p's map.txt (§4) with LF line endings (policy
// §14.6): the header, its own map, the opponent's as it may see it, and
// both players' details.
func (s *State) MapText(p int, names [2]string) []byte {
	var b strings.Builder
	line := func(parts ...string) {
		for _, x := range parts {
			b.WriteString(x)
		}
		b.WriteByte('\n')
	}
	n := strconv.Itoa(s.N)
	bar := strings.Repeat("X", 30)
	line(bar)
	line("Game Version : 1.0.0")
	line("Game Level : 1")
	line("Round Number : ", strconv.Itoa(s.Round))
	line("Map Dimensions : ", n, " x ", n)
	line("Phase : ", strconv.Itoa(s.Phase))
	line(bar)
	line()
	hashes := strings.Repeat("#", s.N)
	line(hashes, " Player")
	s.renderMap(&b, p, true)
	line(hashes, " Opponent")
	s.renderMap(&b, 1-p, false)
	line(hashes)
	line()
	dashes := strings.Repeat("-", 27)
	pl := &s.Players[p]
	line(dashes)
	line("Player Name: ", names[p])
	line("Available Energy: ", strconv.Itoa(pl.Energy))
	line("Shots: ", strconv.Itoa(pl.ShotsFired))
	line("Hit: ", strconv.Itoa(pl.ShotsHit))
	line("Points: ", strconv.Itoa(pl.Points))
	line("Arsenal: [", s.arsenal(p), "]")
	line("Ships: [", s.shipNames(p), "]")
	line("Status: ", status(pl.Killed))
	sh := pl.Shield
	active, center := "Deactivated", "No Shield"
	if sh.Active {
		active = "Activated"
		center = "X:" + strconv.Itoa(sh.CenterX) + ",Y:" + strconv.Itoa(sh.CenterY)
	}
	line("Shield: (Status: ", active, ", Charges: ", strconv.Itoa(sh.Charges), "), Center Point: ", center)
	line(dashes)
	opp := &s.Players[1-p]
	line("Opponent: ", names[1-p])
	line("Points: ", strconv.Itoa(opp.Points))
	line("Ships: [", s.shipNames(1-p), "]")
	line("Status: ", status(opp.Killed))
	line(dashes)
	return []byte(b.String())
}

func status(killed bool) string {
	if killed {
		return "Dead"
	}
	return "Alive"
}

// renderMap draws player q's map, top row (y = N-1) first: as its owner
// sees it (ship letters, lower case when hit) or as the opponent does.
func (s *State) renderMap(b *strings.Builder, q int, own bool) {
	m := &s.Players[q].Map
	for y := s.N - 1; y >= 0; y-- {
		for x := 0; x < s.N; x++ {
			b.WriteByte(cellChar(m[s.index(x, y)], own))
		}
		b.WriteByte('\n')
	}
}

func cellChar(c Cell, own bool) byte {
	switch {
	case c.Shielded && c.ShieldHit:
		return '@'
	case own && c.Occupied:
		l := ships[c.ship].letter
		if c.Hit {
			l += 'a' - 'A'
		}
		return l
	case !own && c.Occupied && c.Hit:
		return '*'
	case !own && c.Hit:
		return '!'
	}
	return '~'
}

// arsenal lists the distinct weapons of player p's ships afloat.
func (s *State) arsenal(p int) string {
	var w []string
	for t, sh := range s.Players[p].Ships {
		if sh.Destroyed {
			continue
		}
		if len(w) == 0 {
			w = append(w, "SingleShot")
		}
		w = append(w, ships[t].weapon)
	}
	return strings.Join(w, ",")
}

// shipNames lists the friendly names of player p's ships afloat.
func (s *State) shipNames(p int) string {
	var names []string
	for t, sh := range s.Players[p].Ships {
		if !sh.Destroyed {
			names = append(names, ships[t].friendly)
		}
	}
	return strings.Join(names, ",")
}
