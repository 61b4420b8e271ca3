package web

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replayZip zips files as the worker stores a replay folder.
func replayZip(t testing.TB, files map[string][]byte) *zip.Reader {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

// fixture is a replay.json written by the game's engine in a real match of
// its starter bots (testdata/replays: the replay.json of each zip that
// REPLAY_DUMP_DIR=dir go test ./internal/jobs -run TestWorkerOtherGames
// leaves in dir).
func fixture(t *testing.T, game string) *zip.Reader {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "replays", game+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return replayZip(t, map[string][]byte{replayJSONFile: data})
}

// TestReadGameReplay checks the viewer's steps of each game's real
// replay: boards as the engines' own drawings mark them (docs/<game>.md,
// "Replay"), the events of the step, and clamping of the step asked for.
func TestReadGameReplay(t *testing.T) {
	names := seatNames{"0": "Ahab", "1": "Nemo", "2": "Bligh"}
	cases := []struct {
		name, game string
		step       int
		wantName   string
		wantIndex  int
		wantCount  int
		// board index and lines it must hold
		board  int
		lines  []string
		events []string
	}{
		{"brainjar placement shows the fleet", "brainjar", 0, "Placement", 0, 74, 0,
			[]string{"  01234567", "2 SS......", "3 SS.....S"}, nil},
		{"brainjar first shot misses seat 1's waters", "brainjar", 1, "Shot 1 of 73", 1, 74, 1,
			[]string{"7 ...o...."}, []string{"Ahab fires at 37: miss"}},
		{"brainjar step past the end is the last, with the winner", "brainjar", 999, "Shot 73 of 73", 73, 74, 0,
			nil, []string{"Ahab wins."}},
		{"brainjar negative step is the first", "brainjar", -5, "Placement", 0, 74, 0, nil, nil},
		{"deepship placement of game 1", "deepship", 0, "Game 1 of 3, placement", 0, 377, 0,
			[]string{"  01234567890", "A .S.........", "G .SS........", "H .SSSSS....."}, []string{"Ahab fires first."}},
		{"deepship first shot misses seat 1's waters", "deepship", 1, "Game 1 of 3, turn 1 of 153", 1, 377, 1,
			[]string{"E ........o.."}, []string{"Ahab: shot at E8, miss"}},
		{"deepship last turn ends the round", "deepship", 376, "Game 3 of 3, turn 102 of 102", 376, 377, 0,
			nil, []string{"Game 3 ends (sunk): Nemo wins.", "Round: Nemo wins."}},
		{"hitandsunk start places every ship", "hitandsunk", 0, "Start", 0, 11, 0,
			[]string{"17 ....0000", "29 ......................1", "23 ............2222"}, nil},
		{"hitandsunk round 3: hit segments drawn x, every ship listed, the round's turns", "hitandsunk", 3, "Round 3 of 10", 3, 11, 0,
			[]string{"23 ...............222x", "28 ......................x", "29 ......................1"}, []string{"Nemo (ship 1): fire ship=1 at=(17,23); hit ship=1 at=(17,23) target=2"}},
		{"hitandsunk end: two wrecks, the winner's hit segment", "hitandsunk", 10, "Round 10 of 10", 10, 11, 0,
			[]string{"17 ..............000x", "20 ......................*"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := readGameReplay(fixture(t, c.game), c.step, names)
			if err != nil || r == nil {
				t.Fatalf("step %d: %v, %v", c.step, r, err)
			}
			if r.Name != c.wantName || r.Index != c.wantIndex || r.Count != c.wantCount {
				t.Fatalf("got %q %d of %d, want %q %d of %d", r.Name, r.Index, r.Count, c.wantName, c.wantIndex, c.wantCount)
			}
			if r.Legend == "" || r.Unit == "" {
				t.Errorf("no legend or unit: %+v", r)
			}
			text := r.Boards[c.board].Text
			for _, l := range c.lines {
				if !strings.Contains(text, "\n"+l) && !strings.HasPrefix(text, l) {
					t.Errorf("board %q lacks line %q:\n%s", r.Boards[c.board].Title, l, text)
				}
			}
			all := strings.Join(r.Events, "\n")
			for _, e := range c.events {
				if !strings.Contains(all, e) {
					t.Errorf("events lack %q:\n%s", e, all)
				}
			}
		})
	}
}

// TestReadGameReplayBadInput checks that a replay the viewer cannot read
// is an error or no viewer, never a panic or a wrong board.
func TestReadGameReplayBadInput(t *testing.T) {
	cases := []struct {
		name    string
		files   map[string][]byte
		wantErr bool
	}{
		{"no replay.json: download only", map[string][]byte{"log.txt": []byte("x")}, false},
		{"a game without a viewer", map[string][]byte{replayJSONFile: []byte(`{"game":"chess"}`)}, false},
		{"not JSON", map[string][]byte{replayJSONFile: []byte(`{"game":`)}, true},
		{"brainjar with one player", map[string][]byte{replayJSONFile: []byte(`{"game":"brainjar","players":[{"key":"0"}]}`)}, true},
		{"deepship with no games", map[string][]byte{replayJSONFile: []byte(`{"game":"deepship","players":[{"key":"0"},{"key":"1"}]}`)}, false},
		{"hitandsunk without a board", map[string][]byte{replayJSONFile: []byte(`{"game":"hitandsunk","size":0}`)}, true},
		{"shots off the board are skipped", map[string][]byte{replayJSONFile: []byte(
			`{"game":"brainjar","players":[{"key":"0"},{"key":"1"}],"shots":[{"player":7,"cell":"99","result":"hit"},{"player":0,"cell":"zz","result":"hit"}]}`)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := readGameReplay(replayZip(t, c.files), 2, nil)
			if (err != nil) != c.wantErr {
				t.Fatalf("err %v, want error %v (%+v)", err, c.wantErr, r)
			}
		})
	}
}
