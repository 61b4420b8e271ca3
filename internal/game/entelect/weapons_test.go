package entelect

import (
	"errors"
	"testing"
)

// sampleLayout is the original sample bots' fixed layout (§11): valid on
// 10×10 and 14×14. Cells: Battleship (1,0)-(1,3); Carrier (3,1)-(7,1);
// Cruiser (4,2)-(4,4); Destroyer (7,3)-(7,4); Submarine (1,8)-(3,8).
const sampleLayout = "Battleship 1 0 North\nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East\n"

// smallLayout fits the 7×7 map: Battleship (0,0)-(0,3); Carrier (1,0)-(5,0);
// Cruiser (2,2)-(4,2); Destroyer (6,5)-(6,6); Submarine (4,4)-(4,6).
const smallLayout = "Battleship 0 0 North\nCarrier 1 0 East\nCruiser 2 2 East\nDestroyer 6 5 North\nSubmarine 4 4 North\n"

func mustPlace(t testing.TB, text string) Command {
	t.Helper()
	cmd, err := ParsePlace([]byte(text))
	if err != nil {
		t.Fatalf("parse place: %v", err)
	}
	return cmd
}

// started returns a match of the given size in phase 2, round 1, both
// players on the same layout.
func started(t testing.TB, size int, layout string) *State {
	t.Helper()
	s := NewState(size)
	cmd := mustPlace(t, layout)
	out := s.Step([2]Command{cmd, cmd}, [2]bool{true, true})
	if out.Errs[0] != nil || out.Errs[1] != nil || s.Phase != 2 {
		t.Fatalf("placement failed: %v %v", out.Errs[0], out.Errs[1])
	}
	return &s
}

// hitCells lists the cells of player p's map with Hit or ShieldHit set.
func hitCells(s *State, p int) map[[2]int]string {
	got := map[[2]int]string{}
	for x := 0; x < s.N; x++ {
		for y := 0; y < s.N; y++ {
			c := s.Cell(p, x, y)
			switch {
			case c.ShieldHit:
				got[[2]int{x, y}] = "shield"
			case c.Hit && c.Occupied:
				got[[2]int{x, y}] = "damaged"
			case c.Hit:
				got[[2]int{x, y}] = "missed"
			}
		}
	}
	return got
}

func TestWeapons(t *testing.T) {
	type xy = [2]int
	cases := []struct {
		name   string
		setup  func(s *State)
		cmd    Command
		err    bool
		cost   int // energy spent by A
		fired  int
		points int
		cells  map[xy]string // B's map afterwards
	}{
		{name: "§7 single shot hit scores 10", cmd: Command{Code: FireShot, X: 1, Y: 0}, cost: 1, fired: 1, points: 10,
			cells: map[xy]string{{1, 0}: "damaged"}},
		{name: "§7 single shot on water misses", cmd: Command{Code: FireShot, X: 0, Y: 0}, cost: 1, fired: 1,
			cells: map[xy]string{{0, 0}: "missed"}},
		{name: "§7/§12.5 single shot off the map fails for free", cmd: Command{Code: FireShot, X: 10, Y: 0}, err: true},
		{name: "§12.5 negative coordinates parse but are off the map", cmd: Command{Code: FireShot, X: -1, Y: 3}, err: true},
		{name: "§7 double shot vertical skips the centre", cmd: Command{Code: DoubleShotVertical, X: 7, Y: 4}, cost: 24, fired: 1, points: 10,
			cells: map[xy]string{{7, 3}: "damaged", {7, 5}: "missed"}},
		{name: "§7 double shot horizontal skips the centre", cmd: Command{Code: DoubleShotHorizontal, X: 4, Y: 3}, cost: 24, fired: 1,
			cells: map[xy]string{{3, 3}: "missed", {5, 3}: "missed"}},
		{name: "§7 corner shot hits the four diagonals", cmd: Command{Code: CornerShot, X: 4, Y: 2}, cost: 30, fired: 1, points: 20,
			cells: map[xy]string{{3, 1}: "damaged", {5, 1}: "damaged", {3, 3}: "missed", {5, 3}: "missed"}},
		{name: "§7 diagonal cross shot hits centre and diagonals", cmd: Command{Code: CrossShotDiagonal, X: 2, Y: 1}, cost: 36, fired: 1, points: 20,
			cells: map[xy]string{{2, 1}: "missed", {1, 0}: "damaged", {1, 2}: "damaged", {3, 0}: "missed", {3, 2}: "missed"}},
		{name: "§7 cross shot sinks the cruiser: 3 hits and the +30 bonus", cmd: Command{Code: CrossShotHorizontal, X: 4, Y: 3}, cost: 42, fired: 1, points: 60,
			cells: map[xy]string{{4, 3}: "damaged", {4, 2}: "damaged", {4, 4}: "damaged", {3, 3}: "missed", {5, 3}: "missed"}},
		{name: "§7 off-map cells of a multi-cell shot are dropped", cmd: Command{Code: CrossShotHorizontal, X: 0, Y: 0}, cost: 42, fired: 1,
			cells: map[xy]string{{0, 0}: "missed", {1, 0}: "damaged", {0, 1}: "missed"}, points: 10},
		{name: "§12.5 multi-cell shot wholly off the map still costs and counts", cmd: Command{Code: CornerShot, X: -5, Y: -5}, cost: 30, fired: 1,
			cells: map[xy]string{}},
		{name: "§7 a shot on an already-hit cell scores nothing but costs", setup: func(s *State) { s.Players[1].Map[s.index(1, 0)].Hit = true },
			cmd: Command{Code: FireShot, X: 1, Y: 0}, cost: 1, fired: 1, cells: map[xy]string{{1, 0}: "damaged"}},
		{name: "§7 special weapon fails once its ship was sunk in an earlier round", setup: func(s *State) { s.Players[0].Ships[Destroyer].Destroyed = true },
			cmd: Command{Code: DoubleShotVertical, X: 7, Y: 4}, err: true},
		{name: "§7 not enough energy fails for free", setup: func(s *State) { s.Players[0].Energy = 23 },
			cmd: Command{Code: DoubleShotHorizontal, X: 4, Y: 3}, err: true},
		{name: "§7 energy exactly the cost is enough", setup: func(s *State) { s.Players[0].Energy = 24 },
			cmd: Command{Code: DoubleShotHorizontal, X: 4, Y: 3}, cost: 24, fired: 1, cells: map[xy]string{{3, 3}: "missed", {5, 3}: "missed"}},
		{name: "§7 seeker picks the nearest ship cell", cmd: Command{Code: SeekerMissile, X: 5, Y: 5}, cost: 36, fired: 1, points: 10,
			cells: map[xy]string{{4, 4}: "damaged"}},
		{name: "§7 seeker ties go to the smaller x", setup: func(s *State) { s.Players[1].Map[s.index(2, 8)].Hit = true },
			cmd: Command{Code: SeekerMissile, X: 2, Y: 9}, cost: 36, fired: 1, points: 10,
			cells: map[xy]string{{2, 8}: "damaged", {1, 8}: "damaged"}},
		{name: "§7 seeker does not reach (±2,±1)", cmd: Command{Code: SeekerMissile, X: 5, Y: 9}, cost: 36, fired: 1,
			cells: map[xy]string{{5, 9}: "missed"}},
		{name: "§7 seeker with no candidate hits its centre", cmd: Command{Code: SeekerMissile, X: 9, Y: 9}, cost: 36, fired: 1,
			cells: map[xy]string{{9, 9}: "missed"}},
		{name: "§7 seeker with off-map centre and no candidate fails", cmd: Command{Code: SeekerMissile, X: -5, Y: -5}, err: true},
		{name: "§7 seeker with off-map centre finds a ship on the map", cmd: Command{Code: SeekerMissile, X: 1, Y: -1}, cost: 36, fired: 1, points: 10,
			cells: map[xy]string{{1, 0}: "damaged"}},
		{name: "§7 seeker ignores shielded cells", setup: func(s *State) {
			s.Players[1].Shield.Charges, s.Players[1].Shield.Radius = 1, 1
			if err := s.placeShield(1, 4, 5); err != nil {
				panic(err)
			}
		}, cmd: Command{Code: SeekerMissile, X: 5, Y: 5}, cost: 36, fired: 1, cells: map[xy]string{{5, 5}: "shield"}},
		{name: "§14.4 seeker sinking a ship earns the +30", setup: func(s *State) { s.Players[1].Map[s.index(7, 3)].Hit = true },
			cmd: Command{Code: SeekerMissile, X: 7, Y: 5}, cost: 36, fired: 1, points: 40,
			cells: map[xy]string{{7, 3}: "damaged", {7, 4}: "damaged"}},
		{name: "§7 shield absorbs a shot: no hit, no points", setup: func(s *State) {
			s.Players[1].Shield.Charges, s.Players[1].Shield.Radius = 1, 1
			if err := s.placeShield(1, 4, 3); err != nil {
				panic(err)
			}
		}, cmd: Command{Code: FireShot, X: 4, Y: 3}, cost: 1, fired: 1, cells: map[xy]string{{4, 3}: "shield"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := started(t, 2, sampleLayout)
			s.Players[0].Energy = 1000
			if tc.setup != nil {
				tc.setup(s)
			}
			before := s.Players[0].Energy
			err := s.fire(0, tc.cmd)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			a := &s.Players[0]
			if got := before - a.Energy; got != tc.cost {
				t.Errorf("energy spent = %d, want %d", got, tc.cost)
			}
			if a.ShotsFired != tc.fired {
				t.Errorf("ShotsFired = %d, want %d", a.ShotsFired, tc.fired)
			}
			if a.Points != tc.points {
				t.Errorf("Points = %d, want %d", a.Points, tc.points)
			}
			if tc.err {
				return
			}
			got := hitCells(s, 1)
			if len(got) != len(tc.cells) {
				t.Errorf("cells = %v, want %v", got, tc.cells)
			}
			for k, v := range tc.cells {
				if got[k] != v {
					t.Errorf("cell %v = %q, want %q (all %v)", k, got[k], v, got)
				}
			}
		})
	}
}

func TestWeaponCosts(t *testing.T) {
	// §7 energy table: cost = rounds × energy per round of the map size.
	want := map[int][6]int{
		1: {1, 16, 20, 24, 28, 24},
		2: {1, 24, 30, 36, 42, 36},
		3: {1, 32, 40, 48, 56, 48},
	}
	codes := [6]Code{FireShot, DoubleShotVertical, CornerShot, CrossShotDiagonal, CrossShotHorizontal, SeekerMissile}
	for size, costs := range want {
		s := NewState(size)
		for i, c := range codes {
			if got := s.WeaponCost(c); got != costs[i] {
				t.Errorf("size %d %v: cost %d, want %d", size, c, got, costs[i])
			}
		}
		if s.Players[0].Energy != sizes[size].energy {
			t.Errorf("size %d: start energy %d, want %d", size, s.Players[0].Energy, sizes[size].energy)
		}
	}
}

func TestSpecialWeaponUsableTheRoundItsShipSinks(t *testing.T) {
	// §7 "needs alive" uses the start-of-round flags: B sinks A's destroyer
	// in the round A double-shots, and A's shot still fires.
	s := started(t, 2, sampleLayout)
	s.Players[0].Energy = 100
	s.Players[0].Map[s.index(7, 3)].Hit = true
	out := s.Step([2]Command{{Code: DoubleShotVertical, X: 7, Y: 4}, {Code: FireShot, X: 7, Y: 4}}, [2]bool{true, true})
	if out.Errs[0] != nil {
		t.Fatalf("A's double shot failed: %v", out.Errs[0])
	}
	if !s.Players[0].Ships[Destroyer].Destroyed {
		t.Fatal("A's destroyer should be flagged destroyed at round end")
	}
	err := s.fire(0, Command{Code: DoubleShotVertical, X: 7, Y: 4})
	if err == nil {
		t.Fatal("double shot after the destroyer sank should fail")
	}
	if errors.Is(err, errOutOfBounds) {
		t.Fatalf("wrong failure: %v", err)
	}
}
