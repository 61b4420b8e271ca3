package board

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ruleset "github.com/broadside/broadside/internal/game"
)

// openJSONFixture opens a replay.json the game's engine wrote in a real
// match of its starter bots (kept with the portal's tests).
func openJSONFixture(t *testing.T, game string) *Replay {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "web", "testdata", "replays", game+".json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := openJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestOtherGames checks a step of each replay.json game: board size, ships,
// the step's marks at the right cells, events and raw file.
func TestOtherGames(t *testing.T) {
	names := Options{Names: map[string]string{"0": "Ahab", "1": "Nemo"}}
	cases := []struct {
		game  string
		step  int
		count int
		check func(t *testing.T, f *Frame)
	}{
		{"brainjar", 1, 74, func(t *testing.T, f *Frame) {
			// Ahab's first shot, at "37": column 3, row 7 of Nemo's waters.
			nemo := f.Grids[1]
			if nemo.Cols != 8 || nemo.Rows != 8 || len(nemo.Ships) != 4 || nemo.Title != "Nemo's waters" {
				t.Fatalf("grid %q %dx%d, %d ships", nemo.Title, nemo.Cols, nemo.Rows, len(nemo.Ships))
			}
			if !hasMark(nemo, MarkMiss, Cell{3, 7}) || !hasMark(nemo, MarkShot, Cell{3, 7}) || len(f.Grids[0].Marks) != 0 {
				t.Errorf("marks %+v / %+v", nemo.Marks, f.Grids[0].Marks)
			}
			if len(f.Events) != 1 || f.Events[0] != "Ahab fires at (3,7): miss" || !strings.Contains(f.Files[0].Text, `"cell": "37"`) {
				t.Errorf("events %q, files %+v", f.Events, f.Files)
			}
		}},
		{"brainjar", 73, 74, func(t *testing.T, f *Frame) {
			sunk := 0
			for _, s := range f.Grids[1].Ships {
				if s.Sunk {
					sunk++
				}
			}
			if sunk != 4 || !strings.HasSuffix(f.Events[len(f.Events)-1], "Ahab wins.") {
				t.Errorf("last shot: %d of Nemo's ships sunk, events %q", sunk, f.Events)
			}
		}},
		{"deepship", 1, 377, func(t *testing.T, f *Frame) {
			// Ahab's first shot of game 1, at E8: row E (4), column 8.
			if g := f.Grids[1]; g.Cols != 11 || g.Rows != 9 || !hasMark(g, MarkMiss, Cell{8, 4}) || g.RowLabels[4] != "E" {
				t.Errorf("Nemo's waters %dx%d, marks %+v", g.Cols, g.Rows, g.Marks)
			}
			if f.Name != "Game 1 of 3, turn 1 of 153" {
				t.Errorf("name %q", f.Name)
			}
		}},
		{"deepship", 376, 377, func(t *testing.T, f *Frame) {
			if f.Name != "Game 3 of 3, turn 102 of 102" || !strings.Contains(strings.Join(f.Events, "\n"), "Match: Nemo wins.") {
				t.Errorf("%q: %q", f.Name, f.Events)
			}
		}},
		{"hitandsunk", 1, 11, func(t *testing.T, f *Frame) {
			g := f.Grids[0]
			if g.Cols != 33 || len(g.Ships) != 3 || len(f.Players) != 3 {
				t.Fatalf("%d columns, %d ships, %d panels", g.Cols, len(g.Ships), len(f.Players))
			}
			// Ship 0 moved to (8,17) this round: its cell is outlined.
			if !hasArea(g, AreaWeapon, Cell{8, 17}) || !g.Ships[0].Pointed {
				t.Errorf("areas %+v", g.Areas)
			}
			if len(f.Files) != 2 || !strings.Contains(f.Files[0].Text, `"kind": "move"`) {
				t.Errorf("raw files %+v", f.Files)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.game, func(t *testing.T) {
			r := openJSONFixture(t, c.game)
			if r.Count() != c.count {
				t.Fatalf("%d steps, want %d", r.Count(), c.count)
			}
			f, err := r.Frame(c.step, names)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, f)
			for _, g := range f.Grids {
				renderGrid(t, g) // well-formed SVG
			}
		})
	}
}

// TestBadReplays checks that a replay the viewer cannot read is an error,
// never a panic or a wrong board.
func TestBadReplays(t *testing.T) {
	cases := []struct {
		name string
		data string
		ok   bool
	}{
		{"not JSON", `{"game":`, false},
		{"an unknown game", `{"game":"chess"}`, false},
		{"brainjar with one player", `{"game":"brainjar","players":[{"key":"0"}]}`, false},
		{"hitandsunk without a board", `{"game":"hitandsunk","size":0}`, false},
		{"shots off the board are skipped", `{"game":"brainjar","players":[{"key":"0"},{"key":"1"}],"shots":[{"player":7,"cell":"99","result":"hit"},{"player":0,"cell":"zz","result":"hit"}]}`, true},
		{"deepship with no games", `{"game":"deepship","players":[{"key":"0"},{"key":"1"}]}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := openJSON([]byte(c.data))
			if (err == nil) != c.ok {
				t.Fatalf("err %v", err)
			}
			if r == nil {
				return
			}
			if _, err := r.Frame(2, Options{}); err != nil && r.Count() > 0 {
				t.Errorf("frame: %v", err)
			}
		})
	}
}

// TestInProgress checks the last step of a match still being played (a
// Live replay): it names no winner and no end, and no total that is not
// known yet; the same step of the finished match does.
func TestInProgress(t *testing.T) {
	names := Options{Names: map[string]string{"0": "Ahab", "1": "Nemo"}}
	cases := []struct {
		game string
		// edit makes the fixture a replay of a match still running, as
		// its engine publishes it (nil: the fixture as it is).
		edit           func(r map[string]any)
		finished, live string // the last step's name
	}{
		{"brainjar", nil, "Shot 73 of 73", "Shot 73"},
		{"deepship", func(r map[string]any) {
			games := r["games"].([]any)
			last := games[len(games)-1].(map[string]any)
			last["end"], last["winner"], r["winner"] = "", nil, nil
		}, "Game 3 of 3, turn 102 of 102", "Game 3, turn 102"},
		{"hitandsunk", nil, "Round 10 of 10", "Round 10"},
	}
	for _, c := range cases {
		t.Run(c.game, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "internal", "web", "testdata", "replays", c.game+".json"))
			if err != nil {
				t.Fatal(err)
			}
			finished, err := openJSON(data)
			if err != nil {
				t.Fatal(err)
			}
			if c.edit != nil {
				var r map[string]any
				if err := json.Unmarshal(data, &r); err != nil {
					t.Fatal(err)
				}
				c.edit(r)
				if data, err = json.Marshal(r); err != nil {
					t.Fatal(err)
				}
			}
			live := NewLive()
			if err := live.Add("0", map[string]string{ruleset.LiveReplayFile: string(data)}); err != nil {
				t.Fatal(err)
			}
			running, err := live.Open()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []struct {
				rp     *Replay
				name   string
				ending bool
			}{{finished, c.finished, true}, {running, c.live, false}} {
				f, err := r.rp.Frame(r.rp.Count()-1, names)
				if err != nil {
					t.Fatal(err)
				}
				events := strings.Join(f.Events, "\n")
				ending := strings.Contains(events, "wins.") || strings.Contains(events, "draw") || strings.Contains(events, "Match:")
				if f.Name != r.name || ending != r.ending {
					t.Errorf("in progress %v: last step %q, events %q; want %q, an ending %v", r.rp == running, f.Name, f.Events, r.name, r.ending)
				}
			}
		})
	}
}
