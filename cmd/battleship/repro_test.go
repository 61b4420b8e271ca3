package main

import (
	"archive/zip"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/broadside/broadside/internal/command"
	"github.com/broadside/broadside/internal/game"
)

// reproLine is the --json line of `battleship repro`, read as a script would.
type reproLine struct {
	DivergedAtRound    *int         `json:"divergedAtRound"`
	Recorded           string       `json:"recorded"`
	Now                string       `json:"now"`
	GhostRanOutAtRound *int         `json:"ghostRanOutAtRound"`
	Result             game.Summary `json:"result"`
}

func reproReportOf(t *testing.T, r result) reproLine {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit status %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	var rep reproLine
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rep); err != nil {
		t.Fatalf("last line of stdout is not the report: %v\n%s", err, r.stdout)
	}
	return rep
}

func roundText(n *int) string {
	if n == nil {
		return "null"
	}
	return strconv.Itoa(*n)
}

// sameResult compares what a match's result is made of.
func sameResult(t *testing.T, got, want game.Summary) {
	t.Helper()
	if *got.Winner != *want.Winner || got.Rounds != want.Rounds || len(got.Players) != len(want.Players) {
		t.Fatalf("result: winner %s in %d rounds, want %s in %d", *got.Winner, got.Rounds, *want.Winner, want.Rounds)
	}
	for i := range got.Players {
		g, w := got.Players[i], want.Players[i]
		if g.Key != w.Key || g.Name != w.Name || g.Points != w.Points || g.ShipsLeft != w.ShipsLeft || g.ShotsFired != w.ShotsFired {
			t.Errorf("player %d: %+v, want %+v", i, g, w)
		}
	}
}

// TestRepro records a match of the Python starter against itself, then
// plays it again with the starter, unchanged and changed from round 10,
// against the recorded moves of the other seat.
func TestRepro(t *testing.T) {
	t.Parallel()
	needTool(t, "python3")
	tmp := t.TempDir()
	k := kit{bin: battleshipBinary(t), bots: tmp}
	for _, name := range []string{"py", "same", "changed"} {
		if err := os.CopyFS(filepath.Join(tmp, name), os.DirFS(filepath.Join("..", "..", "bots", "entelect-python3"))); err != nil {
			t.Fatal(err)
		}
	}
	// From round 10 on, "changed" fires at another cell than the starter
	// would: its command differs in round 10 whatever the state.
	botPy := filepath.Join(tmp, "changed", "bot.py")
	src, err := os.ReadFile(botPy)
	if err != nil {
		t.Fatal(err)
	}
	const choice = "    code, x, y = choose_shot(state, rng)\n"
	if !strings.Contains(string(src), choice) {
		t.Fatalf("the starter no longer chooses its shot with %q", choice)
	}
	patched := strings.Replace(string(src), choice, choice+`    if state["Round"] >= 10:
        other = [c for c in state["OpponentMap"]["Cells"]
                 if not c["Damaged"] and not c["Missed"] and (c["X"], c["Y"]) != (x, y)]
        if other:
            code, x, y = 1, other[0]["X"], other[0]["Y"]
`, 1)
	if err := os.WriteFile(botPy, []byte(patched), 0o644); err != nil {
		t.Fatal(err)
	}

	rec := k.play(t, "-b", "py", "py", "-s", "1", "--seed", "3", "-l", "rec", "--json")
	if rec.code != 0 {
		t.Fatalf("recording: exit status %d\n%s", rec.code, rec.stderr)
	}
	if rec.summary.Rounds <= 11 {
		t.Fatalf("the recorded match lasted %d rounds; the test needs more than 11", rec.summary.Rounds)
	}
	zipFolder(t, filepath.Join(tmp, "rec"), filepath.Join(tmp, "rec.zip"), "match-1")

	t.Run("unchanged", func(t *testing.T) {
		for _, seat := range []string{"", "B"} {
			args := []string{"repro", "--json", "--bot", "same", "-l", "same-" + seat}
			if seat != "" {
				args = append(args, "--seat", seat)
			}
			rep := reproReportOf(t, k.play(t, append(args, "rec")...))
			if rep.DivergedAtRound != nil || rep.GhostRanOutAtRound != nil {
				t.Errorf("seat %q: diverged at %s (%q, %q), ghost ran out at %s; want null, null",
					seat, roundText(rep.DivergedAtRound), rep.Recorded, rep.Now, roundText(rep.GhostRanOutAtRound))
			}
			sameResult(t, rep.Result, rec.summary)
		}
	})

	t.Run("changed", func(t *testing.T) {
		human := k.play(t, "repro", "--bot", "changed", "-l", "changed-folder", "rec")
		rep := reproReportOf(t, k.play(t, "repro", "--json", "--bot", "changed", "-l", "changed-zip", "rec.zip"))
		if rep.DivergedAtRound == nil || *rep.DivergedAtRound != 10 {
			t.Fatalf("diverged at %s, want round 10\n%s", roundText(rep.DivergedAtRound), human.stdout)
		}
		shot := regexp.MustCompile(`^1,\d+,\d+$`)
		if !shot.MatchString(rep.Recorded) || !shot.MatchString(rep.Now) || rep.Recorded == rep.Now {
			t.Errorf("recorded %q, now %q: want two different shots", rep.Recorded, rep.Now)
		}
		// The folder (read by the human run) and its zip (the JSON run) are
		// one recording: the same report.
		for _, want := range []string{
			"Python3 Starter (changed) in seat A against the recorded moves of Python3 Starter in seat B.",
			"Round 10 is the first in which the bot's command differs from the recorded one:",
			"  recorded: " + rep.Recorded + "\n",
			"  now:      " + rep.Now + "\n",
			"Winner: " + *rep.Result.Winner,
		} {
			if !strings.Contains(human.stdout, want) {
				t.Errorf("output lacks %q:\n%s", want, human.stdout)
			}
		}
		// The recording's last folder is round Rounds, with no turns: a
		// longer game finds the ghost out of moves there.
		switch {
		case rep.Result.Rounds > rec.summary.Rounds:
			if rep.GhostRanOutAtRound == nil || *rep.GhostRanOutAtRound != rec.summary.Rounds {
				t.Errorf("game of %d rounds after a recording of %d: ghost ran out at %s, want %d",
					rep.Result.Rounds, rec.summary.Rounds, roundText(rep.GhostRanOutAtRound), rec.summary.Rounds)
			}
			if !strings.Contains(human.stdout, "the ghost did nothing from round") {
				t.Errorf("output does not say the ghost ran out:\n%s", human.stdout)
			}
		case rep.GhostRanOutAtRound != nil:
			t.Errorf("game of %d rounds after a recording of %d: ghost ran out at %d", rep.Result.Rounds, rec.summary.Rounds, *rep.GhostRanOutAtRound)
		}
	})

	t.Run("recording ends first", func(t *testing.T) {
		// The same recording, cut 5 rounds before its end: the bot's
		// commands are the recorded ones as far as the recording goes, and
		// the ghost does nothing from the cut on.
		cut := rec.summary.Rounds - 5
		short := filepath.Join(tmp, "short")
		if err := os.CopyFS(short, os.DirFS(filepath.Join(tmp, "rec"))); err != nil {
			t.Fatal(err)
		}
		for n := cut; n <= rec.summary.Rounds; n++ {
			if err := os.RemoveAll(filepath.Join(short, "Phase 2 - Round "+strconv.Itoa(n))); err != nil {
				t.Fatal(err)
			}
		}
		rep := reproReportOf(t, k.play(t, "repro", "--json", "--bot", "same", "-l", "short-out", "short"))
		if rep.DivergedAtRound != nil || rep.GhostRanOutAtRound == nil || *rep.GhostRanOutAtRound != cut {
			t.Errorf("diverged at %s, ghost ran out at %s; want null and %d",
				roundText(rep.DivergedAtRound), roundText(rep.GhostRanOutAtRound), cut)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		writeFiles(t, filepath.Join(tmp, "hs"), map[string]string{"replay.json": `{"game":"hitandsunk","size":32}`})
		writeFiles(t, tmp, map[string]string{"junk.zip": "not a zip"})
		for _, tc := range []struct {
			name string
			args []string
			want string
		}{
			{"missing replay", []string{"--bot", "same", "nowhere"}, "nowhere"},
			{"not a replay", []string{"--bot", "same", "py"}, "not a replay"},
			{"not a zip", []string{"--bot", "same", "junk.zip"}, "neither a replay folder nor a zip"},
			{"other game", []string{"--bot", "same", "hs"}, "a hitandsunk replay; repro plays Entelect replays only"},
			{"seat C", []string{"--seat", "C", "--bot", "same", "rec"}, "--seat C: Entelect's seats are A and B"},
			{"no bot", []string{"rec"}, "--bot DIR is required"},
			{"no bot folder", []string{"--bot", "nobot", "rec"}, "nobot"},
			{"over the recording", []string{"--bot", "same", "-l", "rec", "rec"}, "-l rec is the replay to play again"},
		} {
			r := k.play(t, append([]string{"repro"}, tc.args...)...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("%s: exit status %d, stderr %q; want %d and %q", tc.name, r.code, r.stderr, exitUsage, tc.want)
			}
		}
	})
}

// zipFolder zips dir into dst under the folder top, as a replay
// downloaded and zipped again may be.
func zipFolder(t *testing.T, dir, dst, top string) {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.Create(top + "/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestTurnCommandSame(t *testing.T) {
	fsys := fstest.MapFS{
		"a/command.txt": {Data: []byte("1,3,4\n")},
		"b/command.txt": {Data: []byte("1,3,4\r\n\r\n")},
		"c/command.txt": {Data: []byte("1,4,3\n")},
		"d/command.txt": {Data: []byte("nonsense")},
		"e/command.txt": {Data: []byte("nonsense\n")},
		// place.txt is read first, as the engine does.
		"f/place.txt":   {Data: []byte("Battleship 0 0 North\nCarrier 1 0 North\nCruiser 2 0 North\nDestroyer 3 0 North\nSubmarine 4 0 North\n")},
		"f/command.txt": {Data: []byte("1,3,4\n")},
		"g/place.txt":   {Data: []byte("Battleship 0 0 North\r\nCarrier 1 0 North\r\nCruiser 2 0 North\r\nDestroyer 3 0 North\r\nSubmarine 4 0 North")},
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"a", "b", true},
		{"a", "c", false},
		{"a", "none", false},
		{"none", "none2", true},
		{"d", "e", true},
		{"a", "d", false},
		{"f", "a", false},
		{"f", "g", true},
	} {
		if got := seatCommand(fsys, tc.a).same(seatCommand(fsys, tc.b)); got != tc.same {
			t.Errorf("%s same as %s = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

func TestGhostIgnored(t *testing.T) {
	for _, tc := range []struct {
		log  string
		want bool
	}{
		{"x - I: \tExecuting process python3 bot.py\n", false},
		{"x - E: \tBot was killed after 4s of wall time, it does nothing this round\n", true},
		{"x - E: \tBot used 2.5s of CPU time, over its budget of 2.1s (2s plus 100ms calibration): its command is ignored\n", true},
		// What the bot prints cannot make the ghost skip its move.
		{"x - I: \tOutput from bot: its command is ignored\n", false},
	} {
		fsys := fstest.MapFS{"r/A/log.txt": {Data: []byte(tc.log)}}
		if got := ignoredInLog(fsys, "r/A"); got != tc.want {
			t.Errorf("ignoredInLog(%q) = %v, want %v", tc.log, got, tc.want)
		}
	}
}

// TestGhost plays a ghost's turns from a recording: the recorded command,
// nothing where the engine took none, and nothing past the recording.
func TestGhost(t *testing.T) {
	moves := func(a, b string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(`{"Player1Move":{"CommandIssued":"` + a + `"},"Player2Move":{"CommandIssued":"` + b + `"}}`)}
	}
	rec := fstest.MapFS{
		"m/Phase 1 - Round 0/B/place.txt":       {Data: []byte("Battleship 0 0 North\n")},
		"m/Phase 2 - Round 1/roundCommand.json": moves("PlaceShip", "PlaceShip"),
		"m/Phase 2 - Round 1/B/command.txt":     {Data: []byte("1,2,3\n")},
		"m/Phase 2 - Round 2/roundCommand.json": moves("FireSingleShot", "FireSingleShot"),
		// Over its CPU budget: the engine took a DoNothing.
		"m/Phase 2 - Round 2/B/command.txt":     {Data: []byte("1,4,4\n")},
		"m/Phase 2 - Round 3/roundCommand.json": moves("FireSingleShot", "DoNothing"),
	}
	g, err := newGhost(rec, "m", "B")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		round, want string // want: what the ghost leaves, "" for nothing
	}{
		{"Phase 1 - Round 0", "place.txt:Battleship 0 0 North\n"},
		{"Phase 2 - Round 1", "command.txt:1,2,3\n"},
		{"Phase 2 - Round 2", ""},
		{"Phase 2 - Round 3", ""}, // the recording's last, root-only folder
		{"Phase 2 - Round 4", ""},
	} {
		dir := filepath.Join(t.TempDir(), tc.round, "B")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Run(t.Context(), command.Cmd{Args: []string{"ghost", "B", dir}}); err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, name := range []string{"place.txt", "command.txt"} {
			if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				got += name + ":" + string(data)
			}
		}
		if got != tc.want {
			t.Errorf("%s: ghost left %q, want %q", tc.round, got, tc.want)
		}
	}
	if n := g.ranOutAt(); n != 3 {
		t.Errorf("ran out at round %d, want 3", n)
	}
}
