package brainjar

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/gametest"
	"github.com/broadside/broadside/internal/sandbox"
)

func TestMain(m *testing.M) {
	gametest.SystemPythonFirst()
	os.Exit(m.Run())
}

// testBot is a bot folder with a generous calibration, so a loaded test
// machine cannot make a well-behaved bot time out.
func testBot(t *testing.T, dir string) game.Bot {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return game.Bot{Name: filepath.Base(abs), Dir: abs, Calibration: 20 * time.Second}
}

func starter(t *testing.T) game.Bot {
	return testBot(t, "../../../bots/brainjar-python3")
}

func scripted(t *testing.T, mode string) game.Bot {
	b := testBot(t, filepath.Join("testdata/bots", mode))
	if mode == "late" {
		b.Calibration = 0
	}
	return b
}

func play(t *testing.T, bots []game.Bot, seed int64) (*game.Summary, Replay) {
	t.Helper()
	return playOpts(t, bots, game.Options{Seed: seed})
}

func playOpts(t *testing.T, bots []game.Bot, opts game.Options) (*game.Summary, Replay) {
	t.Helper()
	return gametest.Play[Replay](t, New(), ReplayFile, bots, opts)
}

// TestStarterBots plays the starter bot against itself end to end, twice with
// the same seed: the replays must be identical (spec policy: the first
// shooter is drawn from the match seed; the starter is deterministic).
func TestStarterBots(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole game with real processes")
	}
	bots := []game.Bot{starter(t), starter(t)}
	opts := game.Options{Seed: 42, NoLimit: true}
	sum, r := playOpts(t, bots, opts)
	if sum.Winner == nil {
		t.Fatalf("no winner: %+v", sum)
	}
	w := *sum.Winner
	for _, p := range sum.Players {
		if p.Key == w {
			if p.Rank != 1 || p.Reason != "" {
				t.Errorf("winner %+v", p)
			}
			continue
		}
		if p.Rank != 2 || p.Reason != "all ships sunk" || p.ShipsLeft != 0 || !p.Killed {
			t.Errorf("loser %+v", p)
		}
	}
	if sum.Rounds != len(r.Shots) || sum.Rounds < 17 {
		t.Errorf("rounds = %d, shots in replay = %d", sum.Rounds, len(r.Shots))
	}
	if len(r.Moves) != len(r.Shots) || r.First < 0 || len(r.Players[0].Ships) != 4 {
		t.Errorf("replay incomplete: %+v", r)
	}
	if *r.Winner != w {
		t.Errorf("replay winner %s, summary %s", *r.Winner, w)
	}
	_, again := playOpts(t, bots, opts)
	if !reflect.DeepEqual(r, again) {
		t.Errorf("same seed, different replays:\n%v\n%v", r.Moves, again.Moves)
	}
}

// TestFaultyBots pits scripted bots that break the protocol against the
// starter: each must lose with a reason naming what it did.
func TestFaultyBots(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	tests := []struct {
		name       string
		mode       string
		wantReason string
	}{
		{name: "spec §5.4: re-shooting a cell loses", mode: "refire", wantReason: "already fired at"},
		{name: "spec §1: a timeout (2 s) loses", mode: "late", wantReason: "timed out"},
		{name: "spec §1: a crash loses", mode: "crash", wantReason: "crashed (exit code 1)"},
		{name: "spec policy: debug text on stdout loses", mode: "debugtext", wantReason: "illegal move: reply is not a JSON object"},
		{name: "spec policy: a rejected placement loses", mode: "badplace", wantReason: "rejected placement: ship \"3\" overlaps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bad := scripted(t, tt.mode)
			sum, r := play(t, []game.Bot{bad, starter(t)}, 7)
			if sum.Winner == nil || *sum.Winner != "1" {
				t.Fatalf("winner = %v, want 1", sum.Winner)
			}
			got := sum.Players[0]
			if !strings.Contains(got.Reason, tt.wantReason) || got.Rank != 2 {
				t.Errorf("loser = %+v, want reason containing %q", got, tt.wantReason)
			}
			if !strings.Contains(got.Log, "request 1: {\"cmd\":\"init\"}") {
				t.Errorf("bot log lacks its requests:\n%s", got.Log)
			}
			if sum.Players[1].Log == got.Log {
				t.Error("both bots share one log")
			}
			if tt.mode == "badplace" && (len(r.Shots) != 0 || r.Players[0].Error == "") {
				t.Errorf("replay after a rejected placement: %+v", r)
			}
		})
	}
}

func TestBothPlacementsRejected(t *testing.T) {
	// spec policy: if both placements are rejected, the game is a draw.
	sum, r := play(t, []game.Bot{scripted(t, "badplace"), scripted(t, "badplace")}, 1)
	if sum.Winner != nil || r.Winner != nil {
		t.Fatalf("winner = %v, want a draw", *sum.Winner)
	}
	for _, p := range sum.Players {
		if p.Rank != 1 || !strings.Contains(p.Reason, "rejected placement") {
			t.Errorf("player %+v", p)
		}
	}
}

func TestLoadErrorLoses(t *testing.T) {
	broken := game.Bot{Name: "broken", LoadError: errors.New("no bot.json")}
	sum, _ := play(t, []game.Bot{starter(t), broken}, 1)
	if sum.Winner == nil || *sum.Winner != "0" {
		t.Fatalf("winner = %v, want 0", sum.Winner)
	}
	if !strings.Contains(sum.Players[1].Reason, "no bot.json") {
		t.Errorf("reason = %q", sum.Players[1].Reason)
	}
}

func TestPlayRejectsBadSetup(t *testing.T) {
	host := sandbox.NewHost(sandbox.HostConfig{})
	if _, err := New().Play(context.Background(), []game.Bot{starter(t)}, game.Options{Runner: host}); err == nil {
		t.Error("one bot: want an error")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := game.Options{Runner: host, ReplayDir: filepath.Join(file, "replay")}
	if _, err := New().Play(context.Background(), []game.Bot{starter(t), starter(t)}, opts); err == nil {
		t.Error("unwritable replay folder: want an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Play(ctx, []game.Bot{starter(t), starter(t)}, game.Options{Runner: host}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
}

func TestCommandFor(t *testing.T) {
	payload := []byte(`{"cmd":"init"}`)
	tests := []struct {
		name   string
		script string // run.sh content; empty means no run.sh
		bot    game.Bot
		want   []string
	}{
		{name: "spec policy: run.sh through its #! interpreter, JSON as one argument",
			script: "#!/usr/bin/env bash\r\nnode bot.js $1\n",
			want:   []string{"/usr/bin/env", "bash", "./run.sh", `{"cmd":"init"}`}},
		{name: "a run.sh without #! runs under sh", script: "coffee bot.coffee $1\n",
			want: []string{"/bin/sh", "./run.sh", `{"cmd":"init"}`}},
		{name: "no run.sh: the manifest's command", bot: game.Bot{Command: []string{"python3", "bot.py"}, TrailingArgs: []string{"-v"}},
			want: []string{"python3", "bot.py", `{"cmd":"init"}`, "-v"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.bot.Dir = t.TempDir()
			if tt.script != "" {
				if err := os.WriteFile(filepath.Join(tt.bot.Dir, "run.sh"), []byte(tt.script), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := commandFor(tt.bot, payload)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := commandFor(game.Bot{Dir: t.TempDir()}, payload); err == nil {
		t.Error("no run.sh and no command: want an error")
	}
}

func TestConsolePlayer(t *testing.T) {
	// A human types the placement as JSON and moves as just "XY".
	var in strings.Builder
	in.WriteString(sample + "\n")
	for col := range Size {
		for row := range Size {
			in.WriteString(Cell{Col: col, Row: row}.String() + "\n")
		}
	}
	var out bytes.Buffer
	human := game.Bot{Key: "H", Name: "human", Console: &game.Console{In: strings.NewReader(in.String()), Out: &out}}
	sum, r := play(t, []game.Bot{human, scripted(t, "stderr")}, 9)
	if sum.Players[0].Reason != "" && sum.Players[0].Reason != "all ships sunk" {
		t.Fatalf("human lost by %q", sum.Players[0].Reason)
	}
	if len(r.Players[0].Ships) != 4 || !strings.Contains(out.String(), `{"cmd":"init"}`) {
		t.Errorf("ships %v, console output %.300s", r.Players[0].Ships, out.String())
	}
	humanShots := 0
	for _, s := range r.Shots {
		if s.Player == 0 {
			humanShots++
		}
	}
	if humanShots == 0 || !strings.Contains(out.String(), `"cmd":"move","you":0`) {
		t.Errorf("human fired %d shots; console output %.300s", humanShots, out.String())
	}
}

// TestBareRunSh plays an original bot folder: only run.sh, without its
// executable bit and without #!, as the original template's. The loader may
// complain about the missing bit; the engine runs run.sh anyway.
func TestBareRunSh(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole game with real processes")
	}
	dir := t.TempDir()
	src, err := os.ReadFile("../../../bots/brainjar-python3/bot.py")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("python3 bot.py $1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bare := game.Bot{Name: "bare", Dir: dir, Calibration: 20 * time.Second, LoadError: errors.New("RunFile run.sh is not executable")}
	// The opponent logs to stderr: no fault, it reaches its own log only.
	var pretty, engine bytes.Buffer
	// The runner's per-turn defaults would kill every request: the engine's
	// own limits must replace them.
	tight := sandbox.NewHost(sandbox.HostConfig{TurnDefaults: sandbox.Limits{WallTime: time.Millisecond, CPUTime: time.Millisecond}})
	opts := game.Options{Seed: 4, Pretty: &pretty, EngineLog: &engine, Runner: tight}
	sum, _ := playOpts(t, []game.Bot{bare, scripted(t, "stderr")}, opts)
	for _, p := range sum.Players {
		if p.Reason != "" && p.Reason != "all ships sunk" {
			t.Fatalf("player %s lost by %q", p.Key, p.Reason)
		}
	}
	if sum.Players[0].ShotsFired == 0 || !strings.Contains(sum.Players[0].Log, "note: RunFile run.sh is not executable") {
		t.Errorf("shots %d, log:\n%.500s", sum.Players[0].ShotsFired, sum.Players[0].Log)
	}
	if !strings.Contains(sum.Players[1].Log, "a log line") || strings.Contains(sum.Players[0].Log, "a log line") {
		t.Error("stderr must reach its own bot's log only")
	}
	if n := strings.Count(engine.String(), "fires at"); n != sum.Rounds {
		t.Errorf("engine log has %d shots, summary %d", n, sum.Rounds)
	}
	if !strings.Contains(pretty.String(), "   0 1 2 3 4 5 6 7") || !strings.Contains(pretty.String(), "X") {
		t.Errorf("pretty output:\n%.500s", pretty.String())
	}
}
