package entelect

import (
	"strings"
	"testing"
)

var both = [2]bool{true, true}

var idle = [2]Command{{Code: DoNothing}, {Code: DoNothing}}

func TestShields(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, s *State)
	}{
		{"§7 a charge every 7 rounds, at the end of rounds 7 and 14", func(t *testing.T, s *State) {
			for s.Round <= 14 {
				r := s.Round
				s.Step(idle, both)
				want := r / 7
				if got := s.Players[0].Shield.Charges; got != want {
					t.Fatalf("after round %d: charges %d, want %d", r, got, want)
				}
			}
			if got := s.Players[0].Shield.Radius; got != 2 {
				t.Fatalf("radius %d, want 2", got)
			}
		}},
		{"§7 radius capped at the map's maximum, charges uncapped", func(t *testing.T, s *State) {
			for s.Round <= 35 {
				s.Step(idle, both)
			}
			sh := s.Players[0].Shield
			if sh.Charges != 5 || sh.Radius != 2 {
				t.Fatalf("charges %d radius %d, want 5 and 2", sh.Charges, sh.Radius)
			}
		}},
		{"§7 placing needs a charge", func(t *testing.T, s *State) {
			if err := s.placeShield(0, 3, 3); err != errShieldCharges {
				t.Fatalf("err = %v", err)
			}
		}},
		{"§7 placing fails while active", func(t *testing.T, s *State) {
			s.Players[0].Shield.Charges, s.Players[0].Shield.Radius = 2, 1
			if err := s.placeShield(0, 3, 3); err != nil {
				t.Fatal(err)
			}
			if err := s.placeShield(0, 5, 5); err != errShieldActive {
				t.Fatalf("err = %v", err)
			}
		}},
		{"§7 shield costs no energy and covers the clipped square", func(t *testing.T, s *State) {
			s.Players[0].Shield.Charges, s.Players[0].Shield.Radius = 1, 2
			e := s.Players[0].Energy
			if err := s.placeShield(0, 0, 0); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, c := range s.Players[0].Map[:s.N*s.N] {
				if c.Shielded {
					n++
				}
			}
			if n != 9 || s.Players[0].Energy != e {
				t.Fatalf("shielded %d cells (want 9), energy %d (want %d)", n, s.Players[0].Energy, e)
			}
		}},
		{"§12.4 off-map shield is accepted and shields nothing", func(t *testing.T, s *State) {
			s.Players[0].Shield.Charges, s.Players[0].Shield.Radius = 1, 1
			if err := s.placeShield(0, -5, -5); err != nil {
				t.Fatal(err)
			}
			if !s.Players[0].Shield.Active {
				t.Fatal("shield should be active")
			}
		}},
		{"§7 v1.2.1 a shield placed this round blocks the opponent's shot this round", func(t *testing.T, s *State) {
			s.Players[1].Shield.Charges, s.Players[1].Shield.Radius = 1, 1
			out := s.Step([2]Command{{Code: FireShot, X: 4, Y: 3}, {Code: PlaceShield, X: 4, Y: 3}}, both)
			if out.Errs[0] != nil || out.Errs[1] != nil {
				t.Fatalf("errs %v %v", out.Errs[0], out.Errs[1])
			}
			c := s.Cell(1, 4, 3)
			if c.Hit || !c.ShieldHit || s.Players[0].Points != 0 {
				t.Fatalf("cell %+v points %d: want absorbed", c, s.Players[0].Points)
			}
		}},
		{"§7 c charges protect c rounds, then the shield and its marks vanish", func(t *testing.T, s *State) {
			s.Players[1].Shield.Charges, s.Players[1].Shield.Radius = 2, 1
			s.Step([2]Command{{Code: FireShot, X: 4, Y: 3}, {Code: PlaceShield, X: 4, Y: 3}}, both)
			s.Step([2]Command{{Code: FireShot, X: 4, Y: 2}, {}}, both)
			if c := s.Cell(1, 4, 2); c.Hit || !c.ShieldHit {
				t.Fatalf("second round: cell %+v, want absorbed", c)
			}
			sh := s.Players[1].Shield
			if !sh.Active || sh.Charges != 1 {
				t.Fatalf("start of third round shows %+v, want active with 1 charge", sh)
			}
			r := s.Round
			s.Step([2]Command{{Code: FireShot, X: 4, Y: 4}, {}}, both)
			if c := s.Cell(1, 4, 4); !c.Hit {
				t.Fatalf("third round: cell %+v, want hit", c)
			}
			if c := s.Cell(1, 4, 3); c.ShieldHit || c.Shielded {
				t.Fatalf("shield marks should be cleared: %+v", c)
			}
			sh = s.Players[1].Shield
			if sh.Active || sh.Radius != 0 || sh.Charges != 0 || sh.RoundLastUsed != r || sh.CenterX != 4 {
				t.Fatalf("deactivated shield %+v", sh)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, started(t, 2, sampleLayout)) })
	}
}

func TestEnergy(t *testing.T) {
	// §7: no energy in phase 1; energy per round added after each phase-2
	// round, after the commands.
	for size := 1; size <= 3; size++ {
		layout := sampleLayout
		if size == 1 {
			layout = smallLayout
		}
		s := started(t, size, layout)
		e := sizes[size].energy
		if got := s.Players[0].Energy; got != e {
			t.Fatalf("size %d after phase 1: energy %d, want %d", size, got, e)
		}
		s.Step([2]Command{{Code: FireShot, X: 0, Y: 6}, {}}, both)
		if got := s.Players[0].Energy; got != 2*e-1 {
			t.Fatalf("size %d: energy %d, want %d", size, got, 2*e-1)
		}
		if got := s.Players[1].Energy; got != 2*e {
			t.Fatalf("size %d: B energy %d, want %d", size, got, 2*e)
		}
	}
}

// sinkAllBut hits every ship cell of player p except (x, y).
func sinkAllBut(s *State, p, x, y int) {
	for i := range s.Players[p].Map[:s.N*s.N] {
		if s.Players[p].Map[i].Occupied && i != s.index(x, y) {
			s.Players[p].Map[i].Hit = true
		}
	}
	s.changed[p] = allShips
	s.destroyShips()
}

func TestPointsAndKills(t *testing.T) {
	t.Run("§8 killing the last ship: +10 +30 and +100, opponent killed", func(t *testing.T) {
		s := started(t, 2, sampleLayout)
		sinkAllBut(s, 1, 7, 4)
		s.Step([2]Command{{Code: FireShot, X: 7, Y: 4}, {}}, both)
		if s.Players[0].Points != 140 || !s.Players[1].Killed || !s.Over() {
			t.Fatalf("points %d killed %v over %v", s.Players[0].Points, s.Players[1].Killed, s.Over())
		}
		if lb := s.Leaderboard(); lb[0] != 0 {
			t.Fatal("A should win")
		}
	})
	t.Run("§8 v1.0.4 both sink the other's last ship the same round: both +100", func(t *testing.T) {
		s := started(t, 2, sampleLayout)
		sinkAllBut(s, 0, 7, 4)
		sinkAllBut(s, 1, 7, 4)
		s.Step([2]Command{{Code: FireShot, X: 7, Y: 4}, {Code: FireShot, X: 7, Y: 4}}, both)
		for p := range 2 {
			if s.Players[p].Points != 140 || !s.Players[p].Killed {
				t.Fatalf("player %d: points %d killed %v", p, s.Players[p].Points, s.Players[p].Killed)
			}
		}
		if lb := s.Leaderboard(); lb[0] != 0 {
			t.Fatal("§8 complete tie goes to A")
		}
	})
	t.Run("§8 round cap ends the game with both alive", func(t *testing.T) {
		s := started(t, 1, smallLayout)
		for !s.Over() {
			s.Step(idle, both)
			s.Players[0].DoNothings, s.Players[1].DoNothings = 0, 0
		}
		if s.Round != 55 {
			t.Fatalf("ended at round %d, want 55 (§8 last playable round 54 on 7×7)", s.Round)
		}
	})
}

func TestLeaderboard(t *testing.T) {
	type pl struct {
		killed      bool
		points, fsl int
		failed      int
	}
	cases := []struct {
		name   string
		a, b   pl
		winner int
	}{
		{"§8.1 alive before killed, even with fewer points", pl{false, 10, 5, 0}, pl{true, 500, 1, 0}, 0},
		{"§8.1 killed A below alive B", pl{true, 500, 1, 0}, pl{false, 10, 5, 0}, 1},
		{"§8.2 more points first", pl{false, 10, 1, 0}, pl{false, 20, 9, 0}, 1},
		{"§8.3 equal points: earlier first landed hit", pl{false, 20, 9, 0}, pl{false, 20, 3, 0}, 1},
		{"§8.3 never hitting counts as last", pl{false, 0, noShot, 0}, pl{false, 0, 40, 0}, 1},
		{"§8.4 then fewer failed placements", pl{false, 20, 3, 2}, pl{false, 20, 3, 1}, 1},
		{"§8.5 complete tie goes to A", pl{false, 20, 3, 1}, pl{false, 20, 3, 1}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewState(2)
			for i, p := range [2]pl{tc.a, tc.b} {
				s.Players[i].Killed, s.Players[i].Points = p.killed, p.points
				s.Players[i].FirstShotLanded, s.Players[i].FailedPlacements = p.fsl, p.failed
			}
			if got := s.Leaderboard()[0]; got != tc.winner {
				t.Fatalf("winner %d, want %d", got, tc.winner)
			}
		})
	}
}

func TestFirstShotLanded(t *testing.T) {
	// §8.3 the tie-break uses the round of the first landed hit.
	s := started(t, 2, sampleLayout)
	s.Step([2]Command{{Code: FireShot, X: 0, Y: 0}, {Code: FireShot, X: 1, Y: 0}}, both)
	s.Step([2]Command{{Code: FireShot, X: 1, Y: 0}, {Code: FireShot, X: 0, Y: 0}}, both)
	if s.Players[0].FirstShotLanded != 2 || s.Players[1].FirstShotLanded != 1 {
		t.Fatalf("first hits %d %d, want 2 and 1", s.Players[0].FirstShotLanded, s.Players[1].FirstShotLanded)
	}
	if s.Leaderboard()[0] != 1 {
		t.Fatal("B hit first and should lead")
	}
}

func TestHarnessKills(t *testing.T) {
	t.Run("§6 20 DoNothings in a row kill at the start of the 21st turn", func(t *testing.T) {
		s := started(t, 2, sampleLayout)
		s.Players[0].Points = 50
		for i := 0; i < 20; i++ {
			if !s.StartTurn(0) || !s.StartTurn(1) {
				t.Fatalf("killed too early, turn %d", i)
			}
			s.Step([2]Command{{}, {Code: FireShot, X: 0, Y: 0}}, both)
		}
		if s.StartTurn(0) {
			t.Fatal("A should be killed")
		}
		a := &s.Players[0]
		if !a.Killed || a.Points != 0 || a.KillReason == "" {
			t.Fatalf("killed %v points %d reason %q", a.Killed, a.Points, a.KillReason)
		}
		if !s.StartTurn(1) {
			t.Fatal("B keeps playing")
		}
		s.Step([2]Command{{}, {Code: FireShot, X: 9, Y: 9}}, [2]bool{false, true})
		// §14.1: the kill ends the game normally; every ship cell took a
		// shot, so B also gets the +100 of the end-of-round kill.
		if !s.Over() || s.Leaderboard()[0] != 1 || s.Players[1].Points != 100 {
			t.Fatalf("over %v leader %d B points %d", s.Over(), s.Leaderboard()[0], s.Players[1].Points)
		}
	})
	t.Run("§12.7 a failed command resets the streak", func(t *testing.T) {
		s := started(t, 2, sampleLayout)
		for i := 0; i < 19; i++ {
			s.Step(idle, both)
		}
		s.Step([2]Command{{Code: FireShot, X: -1, Y: -1}, {}}, both)
		if s.Players[0].DoNothings != 0 || s.Players[1].DoNothings != 20 {
			t.Fatalf("streaks %d %d", s.Players[0].DoNothings, s.Players[1].DoNothings)
		}
	})
	t.Run("§2 5 failed placements kill; the survivor wins", func(t *testing.T) {
		s := NewState(2)
		good := mustPlace(t, sampleLayout)
		for i := 0; i < 5; i++ {
			if !s.StartTurn(0) {
				t.Fatalf("killed after %d failures", i)
			}
			s.Step([2]Command{{}, good}, both)
		}
		if s.StartTurn(0) || s.Players[0].KillReason == "" {
			t.Fatal("A should be killed after 5 failed placements")
		}
		if s.Players[1].FailedPlacements != 0 {
			t.Fatal("§2 B's placements were never evaluated")
		}
		s.Step([2]Command{{}, good}, [2]bool{false, true})
		if !s.Over() || s.Leaderboard()[0] != 1 || s.Players[1].Points != 0 {
			t.Fatalf("over %v leader %d points %d", s.Over(), s.Leaderboard()[0], s.Players[1].Points)
		}
	})
}

// TestPlacementKillShipsLeft pins the ships left of a player killed for 5
// failed placements (§2, §6, §12.1). The original's Killoff shoots the
// cells each ship was last given, even by a failed attempt, and its ships
// are only recounted when the round's placements succeed.
func TestPlacementKillShipsLeft(t *testing.T) {
	// The Battleship is placed, then the Carrier overlaps it: the attempt
	// fails with the Battleship holding cells.
	overlap := mustPlace(t, "Battleship 1 0 North\nCarrier 0 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East\n")
	good := mustPlace(t, sampleLayout)
	bad := mustPlace(t, "Battleship 9 9 North\nCarrier 0 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East\n")
	tests := []struct {
		name      string
		survivor  Command
		wantLeft  int
		wantPhase int
	}{
		{"the survivor places: the shot Battleship is sunk", good, 4, 2},
		{"the survivor fails too: nothing is recounted", bad, 5, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewState(2)
			for range 5 {
				s.StartTurn(0)
				s.Step([2]Command{overlap, good}, [2]bool{true, true})
			}
			if s.StartTurn(0) {
				t.Fatal("A should be killed after 5 failed placements")
			}
			s.Step([2]Command{{}, tt.survivor}, [2]bool{false, true})
			if got := s.ShipsRemaining(0); got != tt.wantLeft {
				t.Errorf("A has %d ships left, want %d", got, tt.wantLeft)
			}
			if s.Phase != tt.wantPhase || !s.Over() || s.Players[1].Points != 0 {
				t.Errorf("phase %d, over %v, B's points %d", s.Phase, s.Over(), s.Players[1].Points)
			}
		})
	}
}

func TestRoundCommandRecord(t *testing.T) {
	// §3.4: phase-1 DoNothing is unsuccessful; in phase 2 it is successful
	// and keeps the previous centre point; a failed command is recorded as
	// issued but unsuccessful.
	s := NewState(2)
	s.Step([2]Command{{}, mustPlace(t, sampleLayout)}, both)
	if m := s.Players[0].Move; m.Successful || !m.HasIssued || m.Issued != DoNothing {
		t.Fatalf("phase-1 DoNothing recorded as %+v", m)
	}
	if s.Players[1].Move.HasIssued {
		t.Fatal("§2 B's command was not evaluated and must not be recorded")
	}
	s2 := started(t, 2, sampleLayout)
	s2.Step([2]Command{{Code: FireShot, X: 3, Y: 4}, {}}, both)
	s2.Step([2]Command{{}, {Code: FireShot, X: 30, Y: 4}}, both)
	a, b := s2.Players[0].Move, s2.Players[1].Move
	if !a.Successful || a.Issued != DoNothing || a.CenterX != 3 || a.CenterY != 4 {
		t.Fatalf("A: %+v", a)
	}
	if b.Successful || b.Issued != FireShot || b.CenterX != 30 {
		t.Fatalf("B: %+v", b)
	}
	if got := string(s2.RoundCommandJSON()); !strings.Contains(got, `"Player1Move":{"SuccessfulMove":true,"CommandIssued":"DoNothing","CenterPoint":"3, 4"`) {
		t.Fatalf("roundCommand.json: %s", got)
	}
}
