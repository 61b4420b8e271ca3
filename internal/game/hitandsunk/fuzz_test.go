package hitandsunk

import (
	"testing"
)

// FuzzApply feeds arbitrary action strings to every ship class next to
// mines, a shielded ship and a submerged one. The engine must never panic
// and must keep the board consistent.
func FuzzApply(f *testing.F) {
	for _, s := range []string{
		"", "W", "MF+2+1", "F+x+1M", "MF+1", "N+1+1", "N-1-1S", "AF+1-1", "KKKKCCCC", "MMMKMMBB",
		"RRDDPPSS", "F+9+9F-9-9F+0+0", "F\u00e9+1+2M", "F+1+\u0663M", "debug Moving S", "F+0+1F+0+2F+0+3",
	} {
		for choice := 1; choice <= 5; choice++ {
			f.Add(choice, s)
		}
	}
	f.Fuzz(func(t *testing.T, choice int, reply string) {
		st, err := ShipTypeByChoice(choice)
		if err != nil {
			return
		}
		g := testGame(16,
			testShip(0, st, 7, 7, FacingRight),
			shielded(testShip(1, Battleship, 9, 5, FacingDown)),
			underwater(testShip(2, Submarine, 4, 9, FacingUp)),
			testShip(3, Carrier, 11, 12, FacingLeft),
		)
		for _, m := range [][2]int{{8, 6}, {9, 6}, {6, 8}, {2, 8}, {10, 10}, {0, 0}} {
			g.addMine(m[0], m[1])
		}
		for turn := 0; turn < 3 && g.Ship(0).Alive(); turn++ {
			g.BeginTurn(0)
			if n := len(g.Map(0)); n != viewSide*viewSide {
				t.Fatalf("map of %d characters", n)
			}
			g.Apply(0, reply)
			checkBoard(t, g)
		}
	})
}

// checkBoard asserts what no action string may break: ships on the grid,
// drawn where they are, live ships not overlapping, and every destroyed
// segment credited as exactly one hit.
func checkBoard(t *testing.T, g *Game) {
	t.Helper()
	hits, damage := 0, 0
	live := map[[2]int]int{}
	for _, s := range g.Ships() {
		hits += s.Hits
		damage += s.Damage
		if s.Mines < 0 || s.Mines > s.Type.Mines {
			t.Fatalf("ship %d has %d mines", s.ID, s.Mines)
		}
		for i := range s.Hull {
			x, y := s.Cell(i)
			if !g.onGrid(x, y) {
				t.Fatalf("ship %d segment %d off the grid at (%d,%d)", s.ID, i, x, y)
			}
			c := g.at(x, y)
			if s.Alive() {
				if other, ok := live[[2]int{x, y}]; ok {
					t.Fatalf("ships %d and %d overlap at (%d,%d)", other, s.ID, x, y)
				}
				live[[2]int{x, y}] = s.ID
				if c.kind != cellShip || c.owner != s.ID {
					t.Fatalf("ship %d segment %d not drawn at (%d,%d)", s.ID, i, x, y)
				}
			}
		}
	}
	if hits != damage {
		t.Fatalf("%d hits credited for %d segments destroyed", hits, damage)
	}
}

// FuzzParseShipChoice checks that any first-call output either picks a
// class 1 to 5 or is refused with an error, never a panic.
func FuzzParseShipChoice(f *testing.F) {
	for _, s := range []string{"1", "+3", "03 x", "", "6", "-1", "\u0663", "2147483648", " \n5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		st, err := ParseShipChoice(out)
		if err == nil && (st.Choice < 1 || st.Choice > 5) {
			t.Fatalf("ParseShipChoice(%q) = %d", out, st.Choice)
		}
	})
}
