package deepship

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/gametest"
	"github.com/broadside/broadside/internal/match"
	"github.com/broadside/broadside/internal/sandbox"
)

func TestMain(m *testing.M) {
	gametest.SystemPythonFirst()
	os.Exit(m.Run())
}

// starter loads the starter bot through its entry.zon, as the platform does.
func starter(t *testing.T) game.Bot {
	t.Helper()
	b := match.LoadBot(game.NewRegistry(New()), "../../../bots/deepship-python3")
	if b.LoadError != nil {
		t.Fatalf("load starter: %v", b.LoadError)
	}
	b.Calibration = 20 * time.Second
	return b
}

// scripted is a bot that misbehaves in one way (testdata/scripted.py).
func scripted(t *testing.T, mode string) game.Bot {
	t.Helper()
	script, err := filepath.Abs("testdata/scripted.py")
	if err != nil {
		t.Fatal(err)
	}
	b := game.Bot{Name: mode, Dir: t.TempDir(), Command: []string{"/usr/bin/python3", script, mode}}
	// A loaded machine must not make placements late, except where
	// lateness is the point.
	if mode != "lateplace" && mode != "neverplace" {
		b.Calibration = 20 * time.Second
	}
	return b
}

func playOpts(t *testing.T, bots []game.Bot, opts game.Options) (*game.Summary, Replay) {
	t.Helper()
	sum, r := gametest.Play[Replay](t, New(), ReplayFile, bots, opts)
	checkScores(t, sum, r)
	return sum, r
}

// checkScores checks what must hold for every round: three games, the
// summary's points from the replay's scores, the winner the one with more.
func checkScores(t *testing.T, sum *game.Summary, r Replay) {
	t.Helper()
	if len(r.Games) != GamesPerRound {
		t.Fatalf("%d games, want %d", len(r.Games), GamesPerRound)
	}
	for i, p := range r.Players {
		if p.Score.Wins+p.Score.Losses != GamesPerRound || p.Points != p.Score.Points() || sum.Players[i].Points != p.Points {
			t.Errorf("player %d: score %+v, points %d, summary %d", i, p.Score, p.Points, sum.Players[i].Points)
		}
	}
	want := -1
	switch {
	case r.Players[0].Points > r.Players[1].Points:
		want = 0
	case r.Players[1].Points > r.Players[0].Points:
		want = 1
	}
	if (want < 0) != (sum.Winner == nil) || (want >= 0 && *sum.Winner != r.Players[want].Key) {
		t.Errorf("winner %v for points %d / %d", sum.Winner, r.Players[0].Points, r.Players[1].Points)
	}
}

// TestStarterBots plays a round between two starter bots twice with the same
// seed: a full round is played and the replays are identical.
func TestStarterBots(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a round with real processes")
	}
	bots := []game.Bot{starter(t), starter(t)}
	opts := game.Options{Seed: 11, NoLimit: true}
	sum, r := playOpts(t, bots, opts)
	for gi, g := range r.Games {
		if g.End != "sunk" || g.Winner == nil {
			t.Errorf("game %d ended %q, winner %v", gi+1, g.End, g.Winner)
		}
		// Policy: the starting player alternates between games.
		if gi > 0 && g.Starter == r.Games[gi-1].Starter {
			t.Errorf("game %d: starter %d again", gi+1, g.Starter)
		}
		if len(g.Ships[0]) != 5 || len(g.Ships[1]) != 5 {
			t.Errorf("game %d: ships %v", gi+1, g.Ships)
		}
	}
	if sum.Rounds < 3*17 || sum.Players[0].ShotsFired+sum.Players[1].ShotsFired != sum.Rounds {
		t.Errorf("rounds %d, shots %d + %d", sum.Rounds, sum.Players[0].ShotsFired, sum.Players[1].ShotsFired)
	}
	log := sum.Players[0].Log
	for _, want := range []string{"<- round-start", "<- game-start", "<- place-ships", "<- take-turn", "-> take-turn;", "<- turn-result;you;",
		"<- turn-result;enemy;", game.StepMark(StepPlacement(1)), game.StepMark(StepTurn(2, 1)), "of the 1s allowed",
		"stderr:\nseeded with " + strconv.FormatUint(PlayerSeed(11, 0), 10) + "\ngame over:"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	// A bot may finish its log once its input ends: the line it writes on
	// stderr for the last game's result is kept, not cut by a kill at the
	// end of the round.
	for _, p := range sum.Players {
		if n := strings.Count(p.Log, "game over:"); n != GamesPerRound {
			t.Errorf("player %s: %d game over lines in its log, want %d:\n%s", p.Key, n, GamesPerRound, p.Log[max(0, len(p.Log)-400):])
		}
	}
	// A measured time runs from the request to the answer: never negative,
	// however the reader and the engine are scheduled.
	for _, p := range sum.Players {
		if strings.Contains(p.Log, " in -") {
			t.Errorf("player %s: a negative measured time in its log", p.Key)
		}
	}
	// spec §9.2: round-start comes before the first game-start.
	if strings.Index(log, "<- round-start") > strings.Index(log, "<- game-start") {
		t.Error("game-start sent before round-start")
	}
	_, again := playOpts(t, bots, opts)
	if !reflect.DeepEqual(r, again) {
		t.Error("same seed and bots, different replays")
	}
	// The starters seed their randomness from BROADSIDE_SEED, drawn from
	// the match's seed: another match of the same two bots is another game.
	_, other := playOpts(t, bots, game.Options{Seed: 12, NoLimit: true})
	if reflect.DeepEqual(r.Games, other.Games) {
		t.Error("seeds 11 and 12 played the same round")
	}
	if PlayerSeed(11, 0) == PlayerSeed(11, 1) || PlayerSeed(11, 0) == PlayerSeed(12, 0) {
		t.Error("two players, or two matches, get the same BROADSIDE_SEED")
	}
}

// events returns player p's events of game gi.
func events(r Replay, gi, p int) []ReplayEvent {
	var out []ReplayEvent
	for _, e := range r.Games[gi].Events {
		if e.Player == p {
			out = append(out, e)
		}
	}
	return out
}

func TestScriptedBots(t *testing.T) {
	if testing.Short() {
		t.Skip("plays rounds with real processes")
	}
	tests := []struct {
		name  string
		mode  string
		check func(t *testing.T, sum *game.Summary, r Replay)
	}{
		{name: "policy: an answer between 1 and 2 s costs a point, the shot counts", mode: "late",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				ev := events(r, 0, 0)
				if ev[0].Kind != "late" || ev[0].Penalty < 1 || ev[1].Kind != "shot" || ev[1].Coord != "A0" {
					t.Errorf("events %+v", ev[:2])
				}
			}},
		{name: "policy: at 3 s the turn is skipped (3 points) and the late answer discarded", mode: "skip",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				ev := events(r, 0, 0)
				if ev[0].Kind != "skip" || ev[0].Penalty != SkipPenalty || ev[1].Kind != "shot" || ev[1].Coord != "A1" {
					t.Errorf("events %+v", ev[:2])
				}
				if !strings.Contains(sum.Players[0].Log, "discarded") {
					t.Error("log does not say the late answer was discarded")
				}
			}},
		{name: "policy: an off-board shot costs 5 and take-turn is sent again", mode: "offboard",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				ev := events(r, 0, 0)
				if ev[0].Kind != "invalid" || ev[0].Coord != "J5" || ev[0].Penalty != InvalidPenalty || ev[1].Kind != "shot" || ev[1].Coord != "A1" {
					t.Errorf("events %+v", ev[:2])
				}
				if r.Players[0].Score.Penalties < InvalidPenalty {
					t.Errorf("penalties %d", r.Players[0].Score.Penalties)
				}
			}},
		{name: "policy: re-firing a cell is legal and repeats its result", mode: "refire",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				for gi := range r.Games {
					ev := events(r, gi, 0)
					for _, e := range ev {
						if e.Kind != "shot" || e.Coord != "A0" || e.Result != ev[0].Result {
							t.Fatalf("game %d: event %+v after %+v", gi+1, e, ev[0])
						}
					}
				}
				if r.Players[0].Score.Losses != 3 || sum.Players[0].ShotsLanded > 1 {
					t.Errorf("score %+v, landed %d", r.Players[0].Score, sum.Players[0].ShotsLanded)
				}
			}},
		{name: "spec §3: debug text lines are ignored", mode: "debugtext",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				noInvalid(t, r)
				if !strings.Contains(sum.Players[0].Log, "-> thinking about A0  (ignored: not a message)") {
					t.Errorf("log:\n%.2000s", sum.Players[0].Log)
				}
			}},
		{name: "policy: a line of 256 bytes or more is ignored", mode: "long",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				noInvalid(t, r)
				if !strings.Contains(sum.Players[0].Log, "ignored: a line of 256 bytes or more") {
					t.Error("log does not mention the long line")
				}
				if ev := events(r, 0, 0); ev[0].Coord != "A0" {
					t.Errorf("first event %+v", ev[0])
				}
			}},
		{name: "policy: \\r\\n line endings are accepted", mode: "crlf",
			check: func(t *testing.T, sum *game.Summary, r Replay) { noInvalid(t, r) }},
		{name: "spec §8: replies to round-start and game-start are accepted", mode: "echo",
			check: func(t *testing.T, sum *game.Summary, r Replay) { noInvalid(t, r) }},
		{name: "policy: an invalid placement costs 5 and place-ships is sent again", mode: "badplace",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				if ev := events(r, 0, 0); ev[0].Kind != "invalid" || ev[0].Note != "invalid placement" || ev[1].Kind != "shot" {
					t.Errorf("events %+v", ev[:2])
				}
				if r.Players[0].Score.Penalties < InvalidPenalty || r.Games[0].Ships[0] == nil || r.Games[0].End != "sunk" {
					t.Errorf("score %+v, game 1 %+v", r.Players[0].Score, r.Games[0])
				}
				if !strings.Contains(sum.Players[0].Log, "no trailing ';'") {
					t.Error("log does not say why the placement was invalid")
				}
			}},
		{name: "policy: a late placement costs a point per started second", mode: "lateplace",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				if ev := events(r, 0, 0); ev[0].Kind != "late" || ev[0].Penalty < 1 {
					t.Errorf("events %+v", ev[:1])
				}
				if p := r.Players[0].Score.Penalties; p < 1 || r.Games[0].End != "sunk" {
					t.Errorf("penalties %d, game 1 ended %q", p, r.Games[0].End)
				}
			}},
		{name: "policy: a crash loses the game, restart once, then forfeit", mode: "crash",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				forfeited(t, sum, r, "failure", "failure", "the program ended")
			}},
		{name: "policy: no placement within the window aborts the game; twice forfeits", mode: "neverplace",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				forfeited(t, sum, r, "placement", "placement", "did not place its ships in time")
			}},
		{name: "policy: a program that ends between games is restarted before the next", mode: "onegame",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				// Found dead between games or at the placement, the program
				// is restarted and plays game 2; after game 2 it forfeits.
				ends := []string{r.Games[0].End, r.Games[1].End, r.Games[2].End}
				if ends[0] != "sunk" || ends[1] != "sunk" || (ends[2] != "forfeit" && ends[2] != "placement") {
					t.Errorf("games ended %v", ends)
				}
				if log := sum.Players[0].Log; !strings.Contains(log, "restarting: the program ended") || strings.Count(log, "<- round-start") != 2 {
					t.Errorf("log:\n%.3000s", log)
				}
			}},
		{name: "policy: three skipped turns in a row make a bot unresponsive", mode: "silent",
			check: func(t *testing.T, sum *game.Summary, r Replay) {
				forfeited(t, sum, r, "failure", "failure", "unresponsive: 3 turns skipped in a row")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sum, r := playOpts(t, []game.Bot{scripted(t, tt.mode), starter(t)}, game.Options{Seed: 2})
			tt.check(t, sum, r)
			if sum.Players[0].Log == sum.Players[1].Log || !strings.Contains(sum.Players[0].Log, "got round-start") {
				t.Error("the scripted bot's log lacks its own stderr")
			}
		})
	}
}

func noInvalid(t *testing.T, r Replay) {
	t.Helper()
	for gi := range r.Games {
		for _, e := range events(r, gi, 0) {
			if e.Kind == "invalid" {
				t.Errorf("game %d: %+v", gi+1, e)
			}
		}
		if r.Games[gi].End != "sunk" {
			t.Errorf("game %d ended %q", gi+1, r.Games[gi].End)
		}
	}
}

// forfeited checks a player 0 that failed in games 1 and 2 (restarted in
// between) and forfeited game 3.
func forfeited(t *testing.T, sum *game.Summary, r Replay, end1, end2, reason string) {
	t.Helper()
	ends := []string{r.Games[0].End, r.Games[1].End, r.Games[2].End}
	if !reflect.DeepEqual(ends, []string{end1, end2, "forfeit"}) {
		t.Errorf("games ended %v", ends)
	}
	if s := r.Players[0].Score; s.Losses != 3 || sum.Winner == nil || *sum.Winner != "1" {
		t.Errorf("score %+v, winner %v", s, sum.Winner)
	}
	log := sum.Players[0].Log
	if !strings.Contains(log, "restarting: "+reason) || strings.Count(log, "<- round-start") != 2 {
		t.Errorf("log lacks the restart:\n%.3000s", log)
	}
	if !strings.Contains(sum.Players[0].Reason, "forfeited the round: "+reason) {
		t.Errorf("reason %q", sum.Players[0].Reason)
	}
}

func TestLoadErrorForfeits(t *testing.T) {
	broken := game.Bot{Name: "broken", LoadError: errors.New("entry.zon: field .img is missing")}
	sum, r := playOpts(t, []game.Bot{starter(t), broken}, game.Options{Seed: 1})
	if sum.Winner == nil || *sum.Winner != "0" || r.Games[0].End != "forfeit" {
		t.Fatalf("winner %v, game 1 %+v", sum.Winner, r.Games[0])
	}
	if !strings.Contains(sum.Players[1].Reason, "field .img is missing") {
		t.Errorf("reason %q", sum.Players[1].Reason)
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
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := New().Play(ctx, []game.Bot{scripted(t, "silent"), starter(t)}, game.Options{Runner: host}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("context ended mid-round: err = %v", err)
	}
}

func TestPrettyAndEngineLog(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a round with real processes")
	}
	var pretty, engine bytes.Buffer
	// The runner's per-turn defaults would kill the round's processes: the
	// engine's own limits must replace them.
	tight := sandbox.NewHost(sandbox.HostConfig{TurnDefaults: sandbox.Limits{WallTime: 100 * time.Millisecond, CPUTime: time.Millisecond}})
	opts := game.Options{Seed: 4, NoLimit: true, Pretty: &pretty, EngineLog: &engine, Runner: tight}
	sum, _ := playOpts(t, []game.Bot{starter(t), starter(t)}, opts)
	if n := strings.Count(engine.String(), " fires at "); n != sum.Rounds {
		t.Errorf("engine log has %d shots, summary %d rounds", n, sum.Rounds)
	}
	if strings.Count(engine.String(), "ends (sunk)") != 3 || strings.Contains(sum.Players[0].Log+sum.Players[1].Log, "restarting") {
		t.Errorf("engine log:\n%.1000s", engine.String())
	}
	if !strings.Contains(pretty.String(), "I ") || !strings.Contains(pretty.String(), "X") {
		t.Errorf("pretty:\n%.1000s", pretty.String())
	}
}

// TestConsolePlayer plays a console seat: the engine's lines go to Out and
// the player's lines come from In, here typed by a goroutine that places
// the fleet and fires at every cell in order.
func TestConsolePlayer(t *testing.T) {
	toEngine, typed := io.Pipe()
	shown, fromEngine := io.Pipe()
	go func() {
		defer typed.Close()
		sc := bufio.NewScanner(shown)
		next := 0
		for sc.Scan() {
			switch sc.Text() {
			case "place-ships":
				fmt.Fprintln(typed, valid)
			case "take-turn":
				fmt.Fprintf(typed, "take-turn;%s\n", Coord{Row: next / Cols % Rows, Col: next % Cols})
				next++
			case "game-start":
				next = 0
			}
		}
	}()
	human := game.Bot{Name: "human", Console: &game.Console{In: toEngine, Out: fromEngine}}
	sum, r := playOpts(t, []game.Bot{human, scripted(t, "plain")}, game.Options{Seed: 8, NoLimit: true})
	fromEngine.Close()
	for gi, g := range r.Games {
		if g.End != "sunk" || len(g.Ships[0]) != 5 {
			t.Errorf("game %d: %+v", gi+1, g)
		}
	}
	if sum.Players[0].ShotsFired == 0 || !strings.Contains(sum.Players[0].Log, "<- turn-result;you;A0;") {
		t.Errorf("console log:\n%.1000s", sum.Players[0].Log)
	}
}
