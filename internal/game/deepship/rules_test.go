package deepship

import (
	"strings"
	"testing"
	"time"
)

// valid is the placement of the spec's example timeline.
const valid = "place-ships;5;horizontal;A0;4;horizontal;B0;3;horizontal;C0;3;horizontal;D0;2;vertical;F7"

func TestParseCoord(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Coord
		onBoard bool
		wantErr bool
	}{
		{name: "spec §1: the letter is the row, the number the column", in: "C7", want: Coord{Row: 2, Col: 7}, onBoard: true},
		{name: "spec §1: A0 is the top-left cell", in: "A0", want: Coord{Row: 0, Col: 0}, onBoard: true},
		{name: "spec §1: I10 is the bottom-right cell", in: "I10", want: Coord{Row: 8, Col: 10}, onBoard: true},
		{name: "spec §3: a leading + is accepted (Zig parseInt)", in: "B+3", want: Coord{Row: 1, Col: 3}, onBoard: true},
		{name: "spec §1: column 11 is off the board", in: "A11", want: Coord{Row: 0, Col: 11}},
		{name: "spec §1: row J is off the board", in: "J0", want: Coord{Row: 9, Col: 0}},
		{name: "spec §3: lower-case letters are rejected", in: "a5", wantErr: true},
		{name: "spec §2: a trailing \\r or space breaks the number", in: "A5 ", wantErr: true},
		{name: "no number", in: "A", wantErr: true},
		{name: "negative", in: "A-1", wantErr: true},
		{name: "number first", in: "5A", wantErr: true},
		{name: "huge number", in: "A123456789012", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCoord(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got != tt.want || got.OnBoard() != tt.onBoard {
				t.Errorf("got %v (on board %v), want %v (%v)", got, got.OnBoard(), tt.want, tt.onBoard)
			}
			if tt.onBoard && tt.in[1] != '+' && got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

func TestParsePlacement(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{name: "spec §3: the example timeline's placement", in: valid},
		{name: "spec §3: triples in any order",
			in: "place-ships;2;vertical;F7;3;horizontal;D0;5;horizontal;A0;3;horizontal;C0;4;horizontal;B0"},
		{name: "spec §4: ships may touch", in: "place-ships;5;horizontal;A0;4;horizontal;B0;3;horizontal;C0;3;horizontal;D0;2;horizontal;E0"},
		{name: "spec §1: vertical extends down the letters to the last row",
			in: "place-ships;5;vertical;E10;4;horizontal;B0;3;horizontal;C0;3;horizontal;D0;2;vertical;F7"},
		{name: "spec §1: the README's example overlaps", in: "place-ships;2;horizontal;A9;3;vertical;B4;3;horizontal;C2;4;horizontal;C3;5;horizontal;C4",
			wantErr: "overlaps"},
		{name: "spec §3: no trailing ';'", in: valid + ";", wantErr: "no trailing"},
		{name: "spec §4: off the board (horizontal past column 10)",
			in: "place-ships;5;horizontal;A7;4;horizontal;B0;3;horizontal;C0;3;horizontal;D0;2;vertical;F7", wantErr: "leaves the board"},
		{name: "spec §4: off the board (vertical past row I)",
			in: "place-ships;5;vertical;F0;4;horizontal;B0;3;horizontal;C0;3;horizontal;D1;2;vertical;F7", wantErr: "leaves the board"},
		{name: "spec §3: sizes must be 2, 3, 3, 4, 5",
			in: "place-ships;5;horizontal;A0;4;horizontal;B0;4;horizontal;C0;3;horizontal;D0;2;vertical;F7", wantErr: "sizes"},
		{name: "spec §3: exactly five ships", in: "place-ships;5;horizontal;A0;4;horizontal;B0", wantErr: "want 5 ships"},
		{name: "spec §3: orientation is exact", in: strings.Replace(valid, "vertical", "Vertical", 1), wantErr: "orientation"},
		{name: "spec §3: size is a number", in: strings.Replace(valid, "5;", "five;", 1), wantErr: "size"},
		{name: "spec §3: lower-case coordinate", in: strings.Replace(valid, "F7", "f7", 1), wantErr: "uppercase"},
		{name: "spec §2: spaces break the line", in: strings.Replace(valid, ";4;", "; 4;", 1), wantErr: "size"},
		{name: "bare keyword", in: "place-ships", wantErr: "triples"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ships, err := ParsePlacement(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cells := 0
			for i, s := range ships {
				if s.Size != fleetSizes[i] || len(s.Cells) != s.Size {
					t.Errorf("ship %d: %+v", i, s)
				}
				cells += len(s.Cells)
			}
			if cells != 17 {
				t.Errorf("%d cells, want 17", cells)
			}
		})
	}
}

func TestFire(t *testing.T) {
	ships, err := ParsePlacement(valid)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBoard(ships)
	steps := []struct {
		name       string
		at         string
		want       string
		wantRepeat bool
	}{
		{name: "spec §4: water is a miss", at: "I0", want: "miss"},
		{name: "spec §4: a ship cell is a hit", at: "F7", want: "hit"},
		{name: "spec §3: the last cell sinks with the ship's size (sink, not sunk)", at: "G7", want: "sink;2"},
		{name: "spec §4: re-firing a miss repeats miss", at: "I0", want: "miss", wantRepeat: true},
		{name: "spec §4: re-firing a hit repeats hit", at: "F7", want: "hit", wantRepeat: true},
		{name: "spec §4: re-firing the sinking cell repeats sink", at: "G7", want: "sink;2", wantRepeat: true},
		{name: "spec §1: horizontal ships extend along the numbers", at: "A4", want: "hit"},
	}
	for _, s := range steps {
		c, err := ParseCoord(s.at)
		if err != nil {
			t.Fatal(err)
		}
		res, repeat := b.Fire(c)
		if res.String() != s.want || repeat != s.wantRepeat {
			t.Errorf("%s: got %s (repeat %v), want %s (%v)", s.name, res, repeat, s.want, s.wantRepeat)
		}
	}
	if b.ShipsLeft() != 4 || b.AllSunk() {
		t.Errorf("ships left = %d, want 4", b.ShipsLeft())
	}
	for _, s := range ships {
		for _, c := range s.Cells {
			b.Fire(c)
		}
	}
	if !b.AllSunk() {
		t.Error("every cell hit but not all sunk")
	}
}

func TestPenaltyFor(t *testing.T) {
	tests := []struct {
		name    string
		elapsed float64 // seconds
		limit   float64
		want    int
	}{
		{name: "spec §5: under the limit is free", elapsed: 0.99, limit: 1, want: 0},
		{name: "spec §5: between 1 and 2 s costs 1", elapsed: 1.5, limit: 1, want: 1},
		{name: "spec §5: between 2 and 3 s costs 2", elapsed: 2.5, limit: 1, want: 2},
		{name: "policy: placement is free within 3 s", elapsed: 2.9, limit: 3, want: 0},
		{name: "policy: placement 0.2 s late costs 1", elapsed: 3.2, limit: 3, want: 1},
	}
	for _, tt := range tests {
		got := penaltyFor(sec(tt.elapsed), sec(tt.limit))
		if got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestScorePoints(t *testing.T) {
	// spec §6: 10 × (wins − losses) − penalties.
	if got := (Score{Wins: 2, Losses: 1, Penalties: 7}).Points(); got != 3 {
		t.Errorf("points = %d, want 3", got)
	}
}

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
