package entelect

import (
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	cases := []struct {
		name string
		in   string
		ok   bool
		want Command
	}{
		{"§1 plain", "1,3,4", true, Command{Code: FireShot, X: 3, Y: 4}},
		{"§1 trailing newline", "1,3,4\n", true, Command{Code: FireShot, X: 3, Y: 4}},
		{"§1 whitespace around fields", " 1 , 6 , 6 \r\n", true, Command{Code: FireShot, X: 6, Y: 6}},
		{"§1 BOM stripped", "\uFEFF7,2,2", true, Command{Code: SeekerMissile, X: 2, Y: 2}},
		{"§1 negative coordinates parse", "4,-5,-5", true, Command{Code: CornerShot, X: -5, Y: -5}},
		{"§1 plus sign", "+2,+1,+1", true, Command{Code: DoubleShotVertical, X: 1, Y: 1}},
		{"§1 code 8 shield", "8,5,4", true, Command{Code: PlaceShield, X: 5, Y: 4}},
		{"§1 code 0 is DoNothing", "0,1,1", true, Command{Code: DoNothing, X: 1, Y: 1}},
		{"§1 unknown code 9", "9,1,1", false, Command{}},
		{"§1 negative code", "-1,1,1", false, Command{}},
		{"§1 too many fields", "1,2,3,4", false, Command{}},
		{"§1 too few fields", "1,2", false, Command{}},
		{"§1 empty field", "1,,3", false, Command{}},
		{"§1 decimal", "1,3.0,4", false, Command{}},
		{"§1 hex", "1,0x3,4", false, Command{}},
		{"§1 overflow", "1,99999999999,4", false, Command{}},
		{"§1 inner space", "1,3 3,4", false, Command{}},
		{"§1 empty file", "", false, Command{}},
		{"§1 two lines", "1,3,4\n1,5,5", false, Command{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCommand([]byte(tc.in))
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
			if tc.ok && (got.Code != tc.want.Code || got.X != tc.want.X || got.Y != tc.want.Y) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseInt32Range(t *testing.T) {
	for in, want := range map[string]int{"2147483647": 1<<31 - 1, "-2147483648": -1 << 31} {
		if got, err := parseInt32(in); err != nil || got != want {
			t.Errorf("%s: %d %v", in, got, err)
		}
	}
	for _, in := range []string{"2147483648", "-2147483649", "+", "-", " "} {
		if _, err := parseInt32(in); err == nil {
			t.Errorf("%q should not parse", in)
		}
	}
}

func TestParsePlace(t *testing.T) {
	cases := []struct {
		name string
		in   string
		ok   bool
		text string
	}{
		{"§2 LF file", sampleLayout, true, "Battleship 1 0 North,Carrier 3 1 East,Cruiser 4 2 North,Destroyer 7 3 North,Submarine 1 8 East"},
		{"§2 CRLF: CR becomes a space in PlaceShipString", strings.ReplaceAll(sampleLayout, "\n", "\r\n"), true,
			"Battleship 1 0 North ,Carrier 3 1 East ,Cruiser 4 2 North ,Destroyer 7 3 North ,Submarine 1 8 East "},
		{"§2 blank lines dropped", "\n \nBattleship 1 0 North\n\nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East\n\t\n", true, ""},
		{"§2 case-insensitive names and directions", "battleship 1 0 north\nCARRIER 3 1 east\nCruiser 4 2 NORTH\ndestroyer 7 3 North\nsubMarine 1 8 East", true, ""},
		{"§2 trailing space harmless", "Battleship 1 0 North \nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East", true, ""},
		{"§2 extra tokens ignored", "Battleship 1 0 North please\nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East", true, ""},
		{"§2 four lines", "Battleship 1 0 North\nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North", false, ""},
		{"§2 six lines", sampleLayout + "Submarine 1 8 East\n", false, ""},
		{"§2 leading space shifts tokens", " Battleship 1 0 North\nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East", false, ""},
		{"§2 double space shifts tokens", "Battleship  1 0 North\nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East", false, ""},
		{"§2 tabs are not separators", "Battleship\t1\t0\tNorth\nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East", false, ""},
		{"§2 'Battle Ship' is invalid", "Battle Ship 1 0 North\nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East", false, ""},
		{"§2 diagonal direction invalid", "Battleship 1 0 NorthEast\nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East", false, ""},
		{"§2 non-numeric x", "Battleship a 0 North\nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 1 8 East", false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePlace([]byte(tc.in))
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
			if tc.ok && (got.Code != PlaceShips || len(got.Ships) != 5) {
				t.Fatalf("got %+v", got)
			}
			if tc.text != "" && got.PlaceText != tc.text {
				t.Fatalf("PlaceText %q, want %q", got.PlaceText, tc.text)
			}
		})
	}
}

func TestPlacement(t *testing.T) {
	cases := []struct {
		name, layout string
		size         int
		ok           bool
	}{
		{"§2 sample layout valid on 10×10", sampleLayout, 2, true},
		{"§2 sample layout valid on 14×14", sampleLayout, 3, true},
		{"§11 sample layout invalid on 7×7", sampleLayout, 1, false},
		{"§2 touching ships allowed", "Battleship 0 0 North\nCarrier 1 0 North\nCruiser 2 0 North\nDestroyer 3 0 North\nSubmarine 4 0 North", 1, true},
		{"§2 overlap fails", "Battleship 0 0 North\nCarrier 0 1 East\nCruiser 2 2 East\nDestroyer 6 5 North\nSubmarine 4 4 North", 1, false},
		{"§2 off the edge fails", "Battleship 0 5 North\nCarrier 1 0 East\nCruiser 2 2 East\nDestroyer 6 5 North\nSubmarine 4 4 North", 1, false},
		{"§2 South and West extend toward 0", "Battleship 0 3 South\nCarrier 5 0 West\nCruiser 2 2 East\nDestroyer 6 6 South\nSubmarine 4 6 South", 1, true},
		{"§2 off-map start fails", "Battleship 0 0 North\nCarrier 1 0 East\nCruiser 2 2 East\nDestroyer 6 5 North\nSubmarine 4 7 South", 1, false},
		{"§2 duplicate type fails", "Battleship 0 0 North\nCarrier 1 0 East\nCruiser 2 2 East\nCruiser 6 4 North\nSubmarine 4 4 North", 1, false},
		{"§1.0.2 north and east borders usable", "Battleship 6 3 North\nCarrier 1 6 East\nCruiser 0 4 North\nDestroyer 4 4 East\nSubmarine 3 3 East", 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewState(tc.size)
			err := s.place(0, mustPlace(t, tc.layout).Ships)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
			if tc.ok {
				n := 0
				for _, c := range s.Players[0].Map {
					if c.Occupied {
						n++
					}
				}
				if n != 17 {
					t.Fatalf("%d cells occupied, want 17", n)
				}
			}
		})
	}
}

func TestPhaseOne(t *testing.T) {
	good := mustPlace(t, sampleLayout)
	t.Run("§2 A fails: B not evaluated, both maps cleared, round still advances", func(t *testing.T) {
		s := NewState(2)
		out := s.Step([2]Command{{Code: FireShot, X: 1, Y: 1}, good}, both)
		if out.Errs[0] == nil || out.Evaluated[1] {
			t.Fatalf("outcome %+v", out)
		}
		if s.Phase != 1 || s.Round != 1 || s.Players[0].FailedPlacements != 1 || s.Players[1].FailedPlacements != 0 {
			t.Fatalf("phase %d round %d failed %d/%d", s.Phase, s.Round, s.Players[0].FailedPlacements, s.Players[1].FailedPlacements)
		}
	})
	t.Run("§2 B fails after A placed: A's map cleared, stale cells kept", func(t *testing.T) {
		s := NewState(2)
		s.Step([2]Command{good, {}}, both)
		if s.allPlaced(0) || s.Cell(0, 1, 0).Occupied {
			t.Fatal("A's map should be cleared")
		}
		if !s.Players[0].Ships[Battleship].HasCells {
			t.Fatal("A's ships keep their stale cells")
		}
		if s.Players[0].Energy != 3 {
			t.Fatal("§7 no energy in phase 1")
		}
	})
	t.Run("§14.2 place.txt in phase 2 is a failed command and repairs nothing", func(t *testing.T) {
		s := started(t, 2, sampleLayout)
		s.Players[0].Map[s.index(1, 0)].Hit = true
		out := s.Step([2]Command{good, {}}, both)
		if out.Errs[0] != errPhase2Place || !s.Cell(0, 1, 0).Hit || s.Players[0].DoNothings != 0 {
			t.Fatalf("err %v, hit %v, streak %d", out.Errs[0], s.Cell(0, 1, 0).Hit, s.Players[0].DoNothings)
		}
	})
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"1,3,4", " 1 , 6 , 6 \r\n", "4,-5,-5", "9,1,1", "1,,", "\uFEFF8,2,2", "1,2147483648,0"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cmd, err := ParseCommand(data)
		if err != nil {
			return
		}
		if cmd.Code < DoNothing || cmd.Code > PlaceShield {
			t.Fatalf("code %d out of range", cmd.Code)
		}
		// Whatever parses must be processable without panicking.
		s := started(t, 2, sampleLayout)
		s.Players[0].Energy = 1 << 20
		s.Step([2]Command{cmd, cmd}, both)
	})
}

func FuzzParsePlace(f *testing.F) {
	f.Add([]byte(sampleLayout))
	f.Add([]byte(strings.ReplaceAll(sampleLayout, "\n", "\r\n")))
	f.Add([]byte("Battleship -1 0 North\nCarrier 3 1 East\nCruiser 4 2 North\nDestroyer 7 3 North\nSubmarine 99999 8 East"))
	f.Add([]byte("Cruiser 1 0 North\nCruiser 3 1 East\nCruiser 4 2 North\nCruiser 7 3 North\nCruiser 1 8 East"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cmd, err := ParsePlace(data)
		if err != nil {
			return
		}
		if len(cmd.Ships) != 5 {
			t.Fatalf("%d ships", len(cmd.Ships))
		}
		for size := 1; size <= 3; size++ {
			s := NewState(size)
			s.Step([2]Command{cmd, cmd}, both)
		}
	})
}
