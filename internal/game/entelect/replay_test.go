package entelect

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game"
)

// TestReplayBudgetTake checks the accounting of a bot's files against the
// replay's caps, one round folder at a time.
func TestReplayBudgetTake(t *testing.T) {
	const kib = 1 << 10
	file := func(name string, size int64) roundFile { return roundFile{name: name, size: size, regular: true} }
	protocol := map[string]int64{"state.json": 3000, "map.txt": 500, "command.txt": maxCmdBytes, "place.txt": maxCmdBytes}
	empties := func(n int) []roundFile {
		var fs []roundFile
		for i := range n {
			fs = append(fs, file("n"+strconv.Itoa(100+i), 0))
		}
		return fs
	}
	tests := []struct {
		name                                  string
		left                                  int64 // of the match's cap before the round
		round                                 int64 // of the round's, taken by the bot's output
		files                                 []roundFile
		keep, overRound, overMatch, irregular []string
		wantLeft                              int64
	}{
		{
			name:  "protocol files within their allowance are free",
			left:  MaxReplayMatchBytes,
			files: []roundFile{file("command.txt", 8), file("map.txt", 500), file("state.json", 3000)},
			keep:  []string{"command.txt", "map.txt", "state.json"}, wantLeft: MaxReplayMatchBytes,
		},
		{
			name:  "a protocol file grown past its allowance is the bot's own",
			left:  MaxReplayMatchBytes,
			files: []roundFile{file("place.txt", maxCmdBytes+1), file("state.json", MaxReplayRoundBytes)},
			keep:  []string{"place.txt"}, overRound: []string{"state.json"}, wantLeft: MaxReplayMatchBytes - maxCmdBytes - 1,
		},
		{
			name:  "files are kept in name order while the round's bytes last",
			left:  MaxReplayMatchBytes,
			files: []roundFile{file("a.bin", 200*kib), file("b.bin", 100*kib), file("big.bin", 300*kib), file("c.bin", 40*kib)},
			keep:  []string{"a.bin", "c.bin"}, overRound: []string{"b.bin", "big.bin"}, wantLeft: MaxReplayMatchBytes - 240*kib,
		},
		{
			name:  "a file of exactly the round's cap fits",
			left:  MaxReplayMatchBytes,
			files: []roundFile{file("all", MaxReplayRoundBytes), file("more", 1)},
			keep:  []string{"all"}, overRound: []string{"more"}, wantLeft: MaxReplayMatchBytes - MaxReplayRoundBytes,
		},
		{
			name:      "the round's file count caps empty files; protocol files do not count",
			left:      MaxReplayMatchBytes,
			files:     append([]roundFile{file("command.txt", 8)}, empties(MaxReplayRoundFiles+2)...),
			keep:      append([]string{"command.txt"}, names(empties(MaxReplayRoundFiles))...),
			overRound: names(empties(MaxReplayRoundFiles + 2)[MaxReplayRoundFiles:]), wantLeft: MaxReplayMatchBytes,
		},
		{
			name: "the bot's output in log.txt counts against the round's bytes",
			left: MaxReplayMatchBytes, round: 200 * kib,
			files: []roundFile{file("b.bin", 100*kib), file("c.bin", 40*kib)},
			keep:  []string{"c.bin"}, overRound: []string{"b.bin"}, wantLeft: MaxReplayMatchBytes - 40*kib,
		},
		{
			name:  "near the match's cap only what is left fits",
			left:  100 * kib,
			files: []roundFile{file("a.bin", 200*kib), file("c.bin", 40*kib), file("d.bin", 60*kib), file("e.bin", 1)},
			keep:  []string{"c.bin", "d.bin"}, overMatch: []string{"a.bin", "e.bin"}, wantLeft: 0,
		},
		{
			name:  "protocol files are kept when the match's cap is spent",
			left:  0,
			files: []roundFile{file("command.txt", 8), file("notes", 1), file("state.json", 3000)},
			keep:  []string{"command.txt", "state.json"}, overMatch: []string{"notes"}, wantLeft: 0,
		},
		{
			name:  "links and folders are left out and cost nothing",
			left:  MaxReplayMatchBytes,
			files: []roundFile{{name: "link"}, {name: "sub"}, file("x", 10)},
			keep:  []string{"x"}, irregular: []string{"link", "sub"}, wantLeft: MaxReplayMatchBytes - 10,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := replayBudget{left: tt.left, round: tt.round}
			got := b.take(tt.files, protocol)
			for _, c := range []struct {
				what      string
				got, want []string
			}{
				{"kept", names(got.keep), tt.keep}, {"over the round's caps", names(got.overRound), tt.overRound},
				{"over the match's cap", names(got.overMatch), tt.overMatch}, {"not files", names(got.irregular), tt.irregular},
			} {
				if !slices.Equal(c.got, c.want) {
					t.Errorf("%s: %q, want %q", c.what, c.got, c.want)
				}
			}
			if b.left != tt.wantLeft {
				t.Errorf("left %d, want %d", b.left, tt.wantLeft)
			}
		})
	}
}

func names(files []roundFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.name)
	}
	return out
}

// TestPlayTournamentCapsBotFiles plays a bot that fills its round folder
// every turn: in tournament mode the replay keeps what fits the caps, the
// bot's log says what was left out, and no private folder stays behind;
// outside it the folder is the bot's, as in the original.
func TestPlayTournamentCapsBotFiles(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "replay")
	sum, _ := playScripts(t, game.Options{Seed: 7, Tournament: true, ReplayDir: dir}, scriptBot(t, "hoard"), scriptBot(t, "sweep", "reverse"))
	round0 := filepath.Join(dir, "Phase 1 - Round 0", "A")
	for name, want := range map[string]bool{"notes.bin": true, "place.txt": true, "state.json": true, "map.txt": true, "log.txt": true,
		"over.bin": false, "link": false, "sub": false} {
		if exists(filepath.Join(round0, name)) != want {
			t.Errorf("%s in the replay: %v, want %v", name, !want, want)
		}
	}
	log, _ := os.ReadFile(filepath.Join(round0, "log.txt"))
	for _, want := range []string{
		`replay: 300 KiB of files in your round folder were left out of the replay (cap 256 KiB and 64 files per round, output included): "over.bin"`,
		`replay: entries of your round folder that are not regular files were left out of the replay: "link", "sub"`,
	} {
		if !strings.Contains(string(log), want) {
			t.Errorf("round 0's log.txt lacks %q:\n%s", want, log)
		}
		if !strings.Contains(sum.Players[0].Log, want) {
			t.Errorf("the bot's match log lacks %q", want)
		}
	}
	if strings.Contains(sum.Players[1].Log, "left out of the replay") {
		t.Error("the quiet bot's log says something was left out")
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("beside the replay folder after the match: %v", entries)
	}

	_, dir = playScripts(t, game.Options{Seed: 7}, scriptBot(t, "hoard"), scriptBot(t, "sweep", "reverse"))
	if !exists(filepath.Join(dir, "Phase 1 - Round 0", "A", "over.bin")) {
		t.Error("outside tournament mode the bot's files stay as it left them")
	}
}

// TestLogOutputCharges checks that in tournament mode a bot's output lines
// in log.txt are charged to its replay budget, and the lines that do not
// fit are counted in one line instead.
func TestLogOutputCharges(t *testing.T) {
	line := int64(len(logLine(time.Now(), 'I', "Output from bot: xxxxxxxx")))
	tests := []struct {
		name     string
		budget   *replayBudget
		out      string
		lines    int
		note     string
		wantLeft int64
	}{
		{name: "no budget: every line", out: "xxxxxxxx\nxxxxxxxx\nxxxxxxxx\n", lines: 3},
		{name: "within the caps", budget: &replayBudget{left: MaxReplayMatchBytes}, out: "xxxxxxxx\nxxxxxxxx\n",
			lines: 2, wantLeft: MaxReplayMatchBytes - 2*line},
		{name: "the match's cap cuts", budget: &replayBudget{left: 2*line + 1}, out: "xxxxxxxx\nxxxxxxxx\nxxxxxxxx\n",
			lines: 2, note: "replay: 1 lines (", wantLeft: 1},
		{name: "the round's cap cuts", budget: &replayBudget{left: MaxReplayMatchBytes, round: MaxReplayRoundBytes - line},
			out: strings.Repeat("xxxxxxxx\n", 5), lines: 1, note: "replay: 4 lines (", wantLeft: MaxReplayMatchBytes - line},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l turnLog
			logOutput(&l, 'I', []byte(tt.out), tt.budget)
			text := l.buf.String()
			if got := strings.Count(text, "Output from bot: xxxxxxxx"); got != tt.lines {
				t.Errorf("%d lines logged, want %d:\n%s", got, tt.lines, text)
			}
			if tt.note != "" && !strings.Contains(text, tt.note+"") {
				t.Errorf("no note %q:\n%s", tt.note, text)
			}
			if tt.note == "" && strings.Contains(text, "left out") {
				t.Errorf("a note where nothing was cut:\n%s", text)
			}
			if tt.budget != nil && tt.budget.left != tt.wantLeft {
				t.Errorf("left %d, want %d", tt.budget.left, tt.wantLeft)
			}
		})
	}
}

// TestPlayTournamentZip plays a match in tournament mode into a zip archive,
// the platform's way: the archive holds each file once, with the replay
// folder's layout, the last round's player files showing the final state
// (§3.5), and the replay folder keeps no file once the match is over.
func TestPlayTournamentZip(t *testing.T) {
	var archive bytes.Buffer
	dir := t.TempDir()
	sum, _ := playScripts(t, game.Options{Seed: 7, Tournament: true, ReplayDir: dir, ReplayZip: &archive},
		scriptBot(t, "sweep"), scriptBot(t, "sweep", "reverse"))
	zr, err := zip.NewReader(bytes.NewReader(archive.Bytes()), int64(archive.Len()))
	if err != nil {
		t.Fatalf("the archive: %v", err)
	}
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		if files[f.Name] != nil {
			t.Errorf("%s twice in the archive", f.Name)
		}
		files[f.Name] = f
	}
	read := func(name string) []byte {
		f := files[name]
		if f == nil {
			t.Errorf("%s missing from the archive", name)
			return nil
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for _, name := range []string{"state.json", "engine.log", "roundInfo.json", "A - map.txt", "A/log.txt", "A/place.txt", "A/state.json", "B/map.txt"} {
		read("Phase 1 - Round 0/" + name)
	}
	// A command file, taken as the engine read it, is stored as it is: a
	// few bytes do not deflate; a state file is compressed.
	command := "Phase 2 - Round 1/A/command.txt"
	if got := string(read(command)); !regexp.MustCompile(`^1,\d+,\d+\s*$`).MatchString(got) {
		t.Errorf("%s holds %q, not the bot's shot", command, got)
	}
	for name, want := range map[string]uint16{command: zip.Store, "Phase 2 - Round 1/A/state.json": zip.Deflate} {
		if f := files[name]; f != nil && f.Method != want {
			t.Errorf("%s is archived with method %d, want %d", name, f.Method, want)
		}
	}
	last := fmt.Sprintf("Phase 2 - Round %d/B/state.json", sum.Rounds-1)
	if !bytes.Contains(read(last), []byte(`"Round":`+strconv.Itoa(sum.Rounds)+`,`)) {
		t.Errorf("%s does not show the final state (§3.5)", last)
	}
	if final := fmt.Sprintf("Phase 2 - Round %d/state.json", sum.Rounds); files[final] == nil {
		t.Errorf("the final root folder's %s is missing", final)
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("%s left in the replay folder", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
