package entelect

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// scriptBot returns a seat running testdata/bots/<name>.sh in a fresh bot
// folder of its own.
func scriptBot(t *testing.T, name string, trailing ...string) game.Bot {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "bots", name+".sh"))
	if err != nil {
		t.Fatal(err)
	}
	return game.Bot{
		Name:         name,
		Dir:          t.TempDir(),
		Command:      []string{"sh", script},
		TrailingArgs: trailing,
		Language:     "Shell",
		Meta:         game.BotInfo{Author: "Test", NickName: name, Email: "test@example.com", BotType: "CSharp"},
	}
}

func playScripts(t *testing.T, opts game.Options, bots ...game.Bot) (*game.Summary, string) {
	t.Helper()
	if opts.ReplayDir == "" {
		opts.ReplayDir = t.TempDir()
	}
	if opts.Size == 0 {
		opts.Size = 1
	}
	opts.Runner = sandbox.NewHost(sandbox.HostConfig{})
	sum, err := New().Play(context.Background(), bots, opts)
	if err != nil {
		t.Fatalf("play: %v", err)
	}
	return sum, opts.ReplayDir
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestPlayReplayLayout(t *testing.T) {
	sum, dir := playScripts(t, game.Options{Seed: 7}, scriptBot(t, "sweep"), scriptBot(t, "sweep", "reverse"))
	if sum.Game != "entelect" || sum.Winner == nil || sum.Seed != 7 || len(sum.Players) != 2 {
		t.Fatalf("summary %+v", sum)
	}
	w, l := sum.Players[0], sum.Players[1]
	if *sum.Winner == "B" {
		w, l = l, w
	}
	if w.Rank != 1 || l.Rank != 2 || !l.Killed || l.Reason != "all ships destroyed" || w.Reason != "" {
		t.Fatalf("players %+v", sum.Players)
	}
	if w.Points < 17*10+5*30+100 || w.ShotsLanded != 17 || l.ShipsLeft != 0 {
		t.Fatalf("winner %+v", w)
	}
	// §3.5 layout: every processed round has root files, engine.log and
	// both player folders; the final folder only root files.
	round0 := filepath.Join(dir, "Phase 1 - Round 0")
	for _, f := range []string{"state.json", "A - map.txt", "B - map.txt", "roundInfo.json", "roundCommand.json", "engine.log",
		"A/state.json", "A/map.txt", "A/place.txt", "A/log.txt", "B/place.txt"} {
		if !exists(filepath.Join(round0, f)) {
			t.Errorf("missing %s", f)
		}
	}
	if !exists(filepath.Join(dir, "Phase 2 - Round 1", "A", "command.txt")) {
		t.Error("missing Phase 2 - Round 1/A/command.txt")
	}
	final := filepath.Join(dir, "Phase 2 - Round "+strconv.Itoa(sum.Rounds))
	entries, err := os.ReadDir(final)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 5 {
		t.Errorf("final folder holds %d entries, want the 5 root files", len(entries))
	}
	last := filepath.Join(dir, "Phase 2 - Round "+strconv.Itoa(sum.Rounds-1), "A", "state.json")
	if b, _ := os.ReadFile(last); !bytes.Contains(b, []byte(`"Round":`+strconv.Itoa(sum.Rounds)+`,`)) {
		t.Error("§3.5 the last round's player state.json should show the final state")
	}
	log, _ := os.ReadFile(filepath.Join(round0, "A", "log.txt"))
	if !bytes.Contains(log, []byte("Output from bot: bot A playing in "+round0+"/A")) {
		t.Errorf("log.txt should show the key and folder arguments and stdout:\n%s", log)
	}
	if !strings.Contains(w.Log, "=== Phase 1 - Round 0 ===") {
		t.Error("the player summary should carry the bot's log")
	}
	info, _ := os.ReadFile(filepath.Join(final, "roundInfo.json"))
	if !bytes.Contains(info, []byte(`"Winner":{"Author":"Test","NickName":"`+w.Name+`"`)) {
		t.Errorf("final roundInfo winner: %s", info)
	}
}

func TestPlayDeterministic(t *testing.T) {
	// A match is reproducible: the same bots give the same state files
	// (without time limits, so that the machine's load cannot matter).
	_, d1 := playScripts(t, game.Options{NoLimit: true}, scriptBot(t, "sweep"), scriptBot(t, "sweep", "reverse"))
	_, d2 := playScripts(t, game.Options{NoLimit: true}, scriptBot(t, "sweep"), scriptBot(t, "sweep", "reverse"))
	n := 0
	err := filepath.WalkDir(d1, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".log") || strings.HasSuffix(p, "log.txt") {
			return err
		}
		rel, _ := filepath.Rel(d1, p)
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(d2, rel))
		if err != nil || !bytes.Equal(a, b) {
			l1, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "log.txt"))
			l2, _ := os.ReadFile(filepath.Join(d2, filepath.Dir(rel), "log.txt"))
			t.Fatalf("%s differs between runs; logs:\n%s\n%s", rel, l1, l2)
		}
		n++
		return nil
	})
	if err != nil || n < 100 {
		t.Fatalf("compared %d files: %v", n, err)
	}
}

func TestPlayMisbehavingBots(t *testing.T) {
	cases := []struct {
		bot, log, reason string
	}{
		{"garbage", "Invalid place.txt", "killed after 5 failed ship placements"},
		{"crash", "exit code 139", "killed after 5 failed ship placements"},
		{"silent", "neither place.txt nor command.txt", "killed after 5 failed ship placements"},
	}
	for _, tc := range cases {
		t.Run(tc.bot, func(t *testing.T) {
			t.Parallel()
			sum, _ := playScripts(t, game.Options{}, scriptBot(t, tc.bot), scriptBot(t, "sweep"))
			a := sum.Players[0]
			if *sum.Winner != "B" || !a.Killed || a.Reason != tc.reason || a.Points != 0 {
				t.Fatalf("winner %s, A %+v", *sum.Winner, a)
			}
			if !strings.Contains(a.Log, tc.log) {
				t.Fatalf("A's log lacks %q:\n%s", tc.log, a.Log)
			}
			if sum.Rounds != 6 {
				t.Fatalf("rounds %d, want 6 (killed at the start of round 5)", sum.Rounds)
			}
		})
	}
}

// TestPlayFailureNotices checks the original harness's notices in the
// bots' own log.txt: a failed command, a voided placement round, and the
// double shot's class name as the original's engine log prints it.
func TestPlayFailureNotices(t *testing.T) {
	read := func(t *testing.T, path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Run("a voided placement round", func(t *testing.T) {
		_, dir := playScripts(t, game.Options{}, scriptBot(t, "garbage"), scriptBot(t, "sweep"))
		round := filepath.Join(dir, "Phase 1 - Round 0")
		a := read(t, filepath.Join(round, "A", "log.txt"))
		for _, want := range []string{
			"I: \tPlayer Command DoNothingCommand failed because There was a problem during the placement of player's garbage ships (DoNothing), the round will be played over\n",
			"I: \tThe first round has failed due to a bot's ships not all being placed\n",
		} {
			if !strings.Contains(a, want) {
				t.Errorf("A's log.txt lacks %q:\n%s", want, a)
			}
		}
		if b := read(t, filepath.Join(round, "B", "log.txt")); !strings.Contains(b, "The first round has failed") || strings.Contains(b, "Player Command") {
			t.Errorf("B's log.txt:\n%s", b)
		}
	})
	t.Run("a failed double shot", func(t *testing.T) {
		sum, dir := playScripts(t, game.Options{}, scriptBot(t, "misfire"), scriptBot(t, "sweep"))
		round := filepath.Join(dir, "Phase 2 - Round 1")
		const name = "GameEngine.Commands.PlayerCommands.FireDoubleShotCommand"
		if a := read(t, filepath.Join(round, "A", "log.txt")); !strings.Contains(a, "I: \tPlayer Command "+name+" failed because ") {
			t.Errorf("A's log.txt lacks the failure notice:\n%s", a)
		}
		if e := read(t, filepath.Join(round, "engine.log")); !strings.Contains(e, "Added Command "+name+" for Player misfire") {
			t.Errorf("engine.log:\n%s", e)
		}
		if b := read(t, filepath.Join(round, "B", "log.txt")); strings.Contains(b, "Player Command") {
			t.Errorf("B's log.txt has A's notice:\n%s", b)
		}
		if !strings.Contains(sum.Players[0].Log, "Player Command "+name+" failed because ") {
			t.Errorf("A's match log lacks the notice:\n%.2000s", sum.Players[0].Log)
		}
	})
}

// firstMove returns A's entry of the round-1 roundCommand.json, which
// records how A's round-0 command went (§3.4).
func firstMove(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "Phase 1 - Round 1", "roundCommand.json"))
	if err != nil {
		t.Fatal(err)
	}
	move, _, _ := strings.Cut(string(b), `,"Player2Move"`)
	return move
}

func TestPlayTimeLimits(t *testing.T) {
	// B writes garbage, so each match ends after B's five failed
	// placements; only A's round 0 matters.
	cases := []struct {
		name, bot string
		opts      game.Options
		log       string
		placed    bool
	}{
		{"§6 never exits: killed at 4 s wall, its placement ignored", "hang", game.Options{}, "killed after 4s of wall time", false},
		{"§14.5 over the CPU budget: the written placement is ignored", "spin", game.Options{}, "over its budget", false},
		{"§10 --nolimit lifts the limits", "spin", game.Options{NoLimit: true}, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sum, dir := playScripts(t, tc.opts, scriptBot(t, tc.bot), scriptBot(t, "garbage"))
			// Under heavy load the CPU hog may reach the wall-time kill
			// first; either way its command must not count.
			if tc.log != "" && !strings.Contains(sum.Players[0].Log, tc.log) && !strings.Contains(sum.Players[0].Log, "wall time") {
				t.Fatalf("log:\n%s", sum.Players[0].Log)
			}
			if !exists(filepath.Join(dir, "Phase 1 - Round 0", "A", "place.txt")) {
				t.Fatal("the bot should have written its placement")
			}
			want := `"Player1Move":{"SuccessfulMove":false,"CommandIssued":"DoNothing"`
			if tc.placed {
				want = `"Player1Move":{"SuccessfulMove":true,"CommandIssued":"PlaceShip"`
			}
			if got := firstMove(t, dir); !strings.HasPrefix(got, "{"+want) {
				t.Fatalf("round 0 move %s, want %s", got, want)
			}
			if *sum.Winner != "A" || sum.Players[1].Reason != "killed after 5 failed ship placements" {
				t.Fatalf("summary %+v", sum.Players)
			}
		})
	}
}

func TestPlayTournamentHidesFiles(t *testing.T) {
	// §14.3: while a bot runs, the other's files of the round and the root
	// files are not on disk; everything is written at the end.
	sum, dir := playScripts(t, game.Options{Tournament: true}, scriptBot(t, "spy"), scriptBot(t, "spy"))
	for _, p := range sum.Players {
		if strings.Contains(p.Log, "Output from bot: LEAK") || !strings.Contains(p.Log, "NOLEAK") {
			t.Fatalf("player %s saw the other's files:\n%s", p.Key, p.Log)
		}
	}
	for _, f := range []string{"state.json", "engine.log", "A/log.txt", "A/place.txt", "B/state.json"} {
		if !exists(filepath.Join(dir, "Phase 1 - Round 0", f)) {
			t.Errorf("missing %s after the match", f)
		}
	}
	last := filepath.Join(dir, "Phase 2 - Round "+strconv.Itoa(sum.Rounds-1), "B", "state.json")
	if b, _ := os.ReadFile(last); !bytes.Contains(b, []byte(`"Round":`+strconv.Itoa(sum.Rounds)+`,`)) {
		t.Error("§3.5 in tournament mode too, the last round's player files show the final state")
	}
	// Outside tournament mode B sees A's files, as in the original.
	sum, _ = playScripts(t, game.Options{}, scriptBot(t, "spy"), scriptBot(t, "spy"))
	if !strings.Contains(sum.Players[1].Log, "Output from bot: LEAK") {
		t.Fatal("outside tournament mode B should see A's files, as the original")
	}
}

func TestPlayLoadErrorAndConsole(t *testing.T) {
	broken := game.Bot{Name: "broken", LoadError: errors.New("bot.json: unknown BotType 42")}
	// §2: the broken bot's failed placements void each round, so the
	// human places again until the bot is killed at the start of round 5.
	in := strings.NewReader(strings.Repeat("Battleship 0 0 North\nCarrier 1 0 East\nCruiser 2 2 East\nDestroyer 6 5 North\nSubmarine 4 4 North\n", 6))
	var out, pretty, clog bytes.Buffer
	human := game.Bot{Name: "human", Console: &game.Console{In: in, Out: &out}}
	sum, dir := playScripts(t, game.Options{Pretty: &pretty, EngineLog: &clog}, human, broken)
	if !strings.Contains(pretty.String(), "####### Player") || !strings.Contains(clog.String(), "Registered player human") {
		t.Fatalf("--pretty and --clog output missing:\n%s\n%s", pretty.String(), clog.String())
	}
	if *sum.Winner != "A" || sum.Players[1].Reason != "bot could not be loaded: bot.json: unknown BotType 42" {
		t.Fatalf("summary %+v", sum.Players)
	}
	if !strings.Contains(sum.Players[1].Log, "unknown BotType 42") || !strings.Contains(out.String(), "place your ships") {
		t.Fatal("load error should be in the log, and the human prompted")
	}
	info, _ := os.ReadFile(filepath.Join(dir, "Phase 1 - Round 0", "roundInfo.json"))
	if !bytes.Contains(info, []byte(`{"Author":"human","NickName":"human","Email":"human","BotType":"Unkown"}`)) {
		t.Fatalf("§3.4 console player info: %s", info)
	}
}

func TestPlayErrors(t *testing.T) {
	ok := scriptBot(t, "sweep")
	if _, err := New().Play(context.Background(), []game.Bot{ok}, game.Options{ReplayDir: t.TempDir()}); err == nil {
		t.Error("§0 one player should be refused")
	}
	if _, err := New().Play(context.Background(), []game.Bot{ok, ok}, game.Options{ReplayDir: t.TempDir()}); err == nil {
		t.Error("no runner should be refused")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New().Play(ctx, []game.Bot{ok, ok}, game.Options{ReplayDir: t.TempDir(), Runner: sandbox.NewHost(sandbox.HostConfig{})})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled match: %v", err)
	}
}

func TestPlayDebugShowsStderr(t *testing.T) {
	// §6 --debug: a bot's stderr output brings its turn log to the user.
	var clog bytes.Buffer
	playScripts(t, game.Options{Debug: true, EngineLog: &clog}, scriptBot(t, "crash"), scriptBot(t, "sweep"))
	if !strings.Contains(clog.String(), "Bot A wrote to stderr in Phase 1 - Round 0:") ||
		!strings.Contains(clog.String(), "segmentation fault (pretend)") {
		t.Fatalf("engine log:\n%s", clog.String())
	}
	if strings.Contains(clog.String(), "Bot B wrote to stderr") {
		t.Fatal("B wrote nothing to stderr")
	}
}

// Output past the 64 KiB kept is dropped, and the bot's log says so.
func TestOutputCutIsMarked(t *testing.T) {
	sum, _ := playScripts(t, game.Options{Seed: 3}, scriptBot(t, "flood"), scriptBot(t, "sweep", "reverse"))
	log := sum.Players[0].Log
	if !strings.Contains(log, "Output cut at 64 KiB") {
		t.Fatalf("the flooding bot's log does not say its output was cut:\n%s", log[max(0, len(log)-2000):])
	}
	if strings.Contains(sum.Players[1].Log, "Output cut") {
		t.Fatal("the quiet bot's log says its output was cut")
	}
}
