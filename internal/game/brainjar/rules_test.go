package brainjar

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// sample is the engine README's sample config ("37" horizontal fills row 7).
const sample = `{"2":{"point":"00","orientation":"vertical"},"3":{"point":"22","orientation":"vertical"},"4":{"point":"42","orientation":"vertical"},"5":{"point":"37","orientation":"horizontal"}}`

func TestParsePlacement(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
		// cells of ship 5 when valid
		want5 []Cell
	}{
		{name: "spec §3: XY is column then row, horizontal grows the column", in: sample,
			want5: []Cell{{3, 7}, {4, 7}, {5, 7}, {6, 7}, {7, 7}}},
		{name: "spec §4: ships may touch side by side",
			in:    `{"2":{"point":"00","orientation":"horizontal"},"3":{"point":"01","orientation":"horizontal"},"4":{"point":"02","orientation":"horizontal"},"5":{"point":"03","orientation":"horizontal"}}`,
			want5: []Cell{{0, 3}, {1, 3}, {2, 3}, {3, 3}, {4, 3}}},
		{name: "spec §4: extra keys are ignored",
			in:    `{"9":1,"2":{"point":"00","orientation":"vertical"},"3":{"point":"22","orientation":"vertical"},"4":{"point":"42","orientation":"vertical"},"5":{"point":"37","orientation":"horizontal"}}`,
			want5: []Cell{{3, 7}, {4, 7}, {5, 7}, {6, 7}, {7, 7}}},
		{name: "spec §4: a non-digit character counts as 0 (parseInt or 0)",
			in:    `{"2":{"point":"a6","orientation":"horizontal"},"3":{"point":"22","orientation":"vertical"},"4":{"point":"42","orientation":"vertical"},"5":{"point":"-","orientation":"horizontal"}}`,
			want5: []Cell{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}}},
		{name: "spec §4: only the first two characters are read",
			in:    `{"2":{"point":"00","orientation":"vertical"},"3":{"point":"22","orientation":"vertical"},"4":{"point":"42","orientation":"vertical"},"5":{"point":"379","orientation":"horizontal"}}`,
			want5: []Cell{{3, 7}, {4, 7}, {5, 7}, {6, 7}, {7, 7}}},
		{name: "surrounding whitespace is tolerated (JSON.parse)", in: "\n " + sample + "\n",
			want5: []Cell{{3, 7}, {4, 7}, {5, 7}, {6, 7}, {7, 7}}},
		{name: "spec §4: overlap is rejected",
			in:      `{"2":{"point":"00","orientation":"vertical"},"3":{"point":"01","orientation":"horizontal"},"4":{"point":"42","orientation":"vertical"},"5":{"point":"37","orientation":"horizontal"}}`,
			wantErr: "overlaps"},
		{name: "spec §4: leaving the grid is rejected",
			in:      `{"2":{"point":"00","orientation":"vertical"},"3":{"point":"22","orientation":"vertical"},"4":{"point":"42","orientation":"vertical"},"5":{"point":"47","orientation":"horizontal"}}`,
			wantErr: "leaves the grid"},
		{name: "spec §4: a missing ship is rejected",
			in:      `{"2":{"point":"00","orientation":"vertical"},"3":{"point":"22","orientation":"vertical"},"4":{"point":"42","orientation":"vertical"}}`,
			wantErr: `ship "5" missing`},
		{name: "spec §4: orientation is case-sensitive",
			in:      strings.Replace(sample, `"horizontal"`, `"Horizontal"`, 1),
			wantErr: "orientation"},
		{name: "spec §4: a numeric point is rejected",
			in:      strings.Replace(sample, `"00"`, `0`, 1),
			wantErr: "point must be a string"},
		{name: "spec policy: debug text beside the JSON is rejected", in: "placing...\n" + sample, wantErr: "not a JSON object"},
		{name: "spec policy: two documents are rejected", in: sample + sample, wantErr: "not a JSON object"},
		{name: "not an object", in: `[1,2]`, wantErr: "not a JSON object"},
		{name: "null", in: `null`, wantErr: "not a JSON object"},
		{name: "empty output", in: ``, wantErr: "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fleet, err := ParsePlacement([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(fleet) != 4 {
				t.Fatalf("fleet has %d ships, want 4", len(fleet))
			}
			if got := fleet[3].Cells; !reflect.DeepEqual(got, tt.want5) {
				t.Errorf("ship 5 cells = %v, want %v", got, tt.want5)
			}
		})
	}
}

func TestParseMove(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Cell
		wantErr bool
	}{
		{name: "spec §3: first digit is the column", in: `{"move":"34"}`, want: Cell{Col: 3, Row: 4}},
		{name: "trailing newline is tolerated", in: "{\"move\":\"70\"}\n", want: Cell{Col: 7, Row: 0}},
		{name: "spec §5.4: a column of 8 is illegal", in: `{"move":"80"}`, wantErr: true},
		{name: "spec §5.4: a row of 9 is illegal", in: `{"move":"09"}`, wantErr: true},
		{name: "spec §5.4: a non-digit is illegal", in: `{"move":"a1"}`, wantErr: true},
		{name: "spec §5.4: one character is illegal", in: `{"move":"1"}`, wantErr: true},
		{name: "spec §5.4: move missing", in: `{"shot":"11"}`, wantErr: true},
		{name: "spec §5.4: move not a string", in: `{"move":11}`, wantErr: true},
		{name: "spec §5.7 policy: trailing garbage is illegal", in: `{"move":"12x"}`, wantErr: true},
		{name: "spec policy: debug text on stdout is illegal", in: "debug: thinking\n{\"move\":\"11\"}", wantErr: true},
		{name: "not JSON", in: `11`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMove([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("cell = %v, want %v", got, tt.want)
			}
		})
	}
}

func mustFleet(t *testing.T, s string) Fleet {
	t.Helper()
	f, err := ParsePlacement([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGameFlow(t *testing.T) {
	f := mustFleet(t, sample)
	g := NewGame([2]Fleet{f, f}, 0)
	steps := []struct {
		name      string
		cell      Cell
		wantRes   Result
		wantErr   error
		wantAfter int // current player after the shot
	}{
		{name: "spec §5.5: a miss passes the turn", cell: Cell{1, 1}, wantRes: Miss, wantAfter: 1},
		{name: "spec §5.5: a hit shoots again", cell: Cell{0, 0}, wantRes: Hit, wantAfter: 1},
		{name: "spec §5.5: a sink shoots again", cell: Cell{0, 1}, wantRes: Sink, wantAfter: 1},
		{name: "miss back to player 0", cell: Cell{7, 0}, wantRes: Miss, wantAfter: 0},
		{name: "spec §5.4: the same cell on the other grid is fine", cell: Cell{0, 0}, wantRes: Hit, wantAfter: 0},
		{name: "spec §5.4: re-shooting a cell is illegal", cell: Cell{0, 0}, wantErr: ErrShotTwice, wantAfter: 0},
	}
	for _, s := range steps {
		res, err := g.Shoot(s.cell)
		if s.wantErr != nil {
			if !errors.Is(err, s.wantErr) {
				t.Fatalf("%s: err = %v, want %v", s.name, err, s.wantErr)
			}
		} else if err != nil || res != s.wantRes {
			t.Fatalf("%s: got %v, %v; want %v", s.name, res, err, s.wantRes)
		}
		if g.Current() != s.wantAfter {
			t.Fatalf("%s: current = %d, want %d", s.name, g.Current(), s.wantAfter)
		}
	}
	// spec §2: the snapshot of player 1.
	snap, err := json.Marshal(g.Snapshot(1))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hit":["00","01"],"missed":["70"],"destroyed":["2"],"moves":["0111","1003","1014","1701","0003"],"cmd":"move","you":1}`
	if string(snap) != want {
		t.Errorf("snapshot\n got %s\nwant %s", snap, want)
	}
}

func TestSnapshotOrder(t *testing.T) {
	f := mustFleet(t, sample)
	g := NewGame([2]Fleet{f, f}, 0)
	// Misses fired out of column-major order by player 0 (a miss passes the
	// turn, so player 1 misses in between).
	for _, c := range []Cell{{7, 1}, {7, 0}, {1, 5}, {7, 2}, {1, 0}, {7, 3}} {
		if _, err := g.Shoot(c); err != nil {
			t.Fatal(err)
		}
	}
	// spec §2: hit/missed are sorted by column, then row.
	if got, want := g.Snapshot(0).Missed, []string{"10", "15", "71"}; !reflect.DeepEqual(got, want) {
		t.Errorf("missed = %v, want %v", got, want)
	}
	if got, want := g.Snapshot(1).Missed, []string{"70", "72", "73"}; !reflect.DeepEqual(got, want) {
		t.Errorf("missed = %v, want %v", got, want)
	}
}

func TestGameEnds(t *testing.T) {
	f := mustFleet(t, sample)
	g := NewGame([2]Fleet{f, f}, 1)
	// spec §5.6: the game ends when every ship cell of one side is hit; with
	// every shot a hit, player 1 keeps shooting to the end.
	for _, s := range f {
		for _, c := range s.Cells {
			if w, over := g.Winner(); over {
				t.Fatalf("game over early, winner %d", w)
			}
			if _, err := g.Shoot(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	w, over := g.Winner()
	if !over || w != 1 {
		t.Fatalf("winner = %d, over = %v; want 1, true", w, over)
	}
	fired, landed, left := g.Stats(0)
	if fired != 0 || landed != 0 || left != 0 {
		t.Errorf("player 0 stats = %d %d %d, want 0 0 0", fired, landed, left)
	}
	if got := g.Snapshot(1).Destroyed; !reflect.DeepEqual(got, []string{"2", "3", "4", "5"}) {
		t.Errorf("destroyed = %v", got)
	}
}
