package match

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

func writeBot(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const pyBot = `{"Author":"Ann","NickName":"Annie","Email":"a@x","BotType":"Python3","RunFile":"bot.py","RunArgs":"--fast"}`

func TestLoadBot(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		emptyPATH bool
		wantErr   string
		check     func(t *testing.T, b game.Bot)
	}{
		{name: "python bot", files: map[string]string{"bot.json": pyBot, "bot.py": "print(1)"},
			check: func(t *testing.T, b game.Bot) {
				if b.Name != "Annie" || b.Language != "Python3" || len(b.Command) != 2 || b.Command[1] != "bot.py" ||
					len(b.TrailingArgs) != 1 || b.TrailingArgs[0] != "--fast" {
					t.Errorf("bot = %+v", b)
				}
				if b.Meta != (game.BotInfo{Author: "Ann", NickName: "Annie", Email: "a@x", BotType: "Python3"}) {
					t.Errorf("Meta = %+v", b.Meta)
				}
			}},
		{name: "no bot.json", files: map[string]string{"bot.py": ""}, wantErr: "no bot.json"},
		{name: "unknown BotType", files: map[string]string{"bot.json": `{"BotType":"Cobol","RunFile":"a"}`}, wantErr: `unknown BotType "Cobol"`},
		{name: "missing RunFile", files: map[string]string{"bot.json": pyBot}, wantErr: "RunFile bot.py does not exist"},
		{name: "missing runtime", files: map[string]string{"bot.json": pyBot, "bot.py": ""}, emptyPATH: true,
			wantErr: "python3, which is not installed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.emptyPATH {
				t.Setenv("PATH", t.TempDir())
			}
			dir := writeBot(t, tt.files)
			b := LoadBot(rulesets.Registry(), dir)
			if b.Dir != dir {
				t.Errorf("Dir = %q, want %q", b.Dir, dir)
			}
			if tt.wantErr != "" {
				if b.LoadError == nil || !strings.Contains(b.LoadError.Error(), tt.wantErr) {
					t.Fatalf("LoadError = %v, want one containing %q", b.LoadError, tt.wantErr)
				}
				if b.Name == "" {
					t.Error("a bot that failed to load has no name")
				}
				return
			}
			if b.LoadError != nil {
				t.Fatalf("LoadError = %v", b.LoadError)
			}
			tt.check(t, b)
		})
	}
}

func TestLoadBotsGame(t *testing.T) {
	ent := writeBot(t, map[string]string{"bot.json": pyBot, "bot.py": ""})
	hs := writeBot(t, map[string]string{"bot.json": `{"BotType":5,"RunFile":"b.py","Game":"hitandsunk"}`, "b.py": ""})
	broken := writeBot(t, nil)
	l := NewLoader(rulesets.Registry())
	if _, g := l.LoadBots([]string{ent, ent, broken}); g != "entelect" {
		t.Errorf("agreeing bots: game %q", g)
	}
	if _, g := l.LoadBots([]string{ent, hs}); g != "" {
		t.Errorf("disagreeing bots: game %q", g)
	}
}

// runOnce is a minimal two-seat rule set: each bot process runs once, and
// the summary reports what it printed. It stands for any rule set to check
// what Match hands over.
type runOnce struct {
	panics bool
	seen   []game.Bot
}

func (r *runOnce) Name() string        { return "runonce" }
func (r *runOnce) Seats() (int, int)   { return 2, 2 }
func (r *runOnce) Traits() game.Traits { return game.Traits{Title: "Run once"} }
func (r *runOnce) Play(ctx context.Context, bots []game.Bot, opts game.Options) (*game.Summary, error) {
	if r.panics {
		panic("index out of range")
	}
	r.seen = bots
	sum := &game.Summary{Game: r.Name(), Seed: opts.Seed}
	for _, b := range bots {
		p := game.PlayerSummary{Name: b.Name}
		switch {
		case b.LoadError != nil:
			p.Reason = b.LoadError.Error()
		default:
			runner := b.Runner
			if runner == nil {
				runner = opts.Runner
			}
			args := append(append(append([]string{}, b.Command...), "A", "/tmp"), b.TrailingArgs...)
			res, err := runner.Run(ctx, sandbox.Cmd{Args: args, Dir: b.Dir, Limits: sandbox.Limits{WallTime: 20 * time.Second}})
			if err != nil {
				return nil, err
			}
			p.Reason = strings.TrimSpace(string(res.Stdout))
		}
		sum.Players = append(sum.Players, p)
	}
	return sum, nil
}

type closeCounter struct{ n *int }

func (c closeCounter) Close() error { *c.n++; return nil }

func TestMatchPlay(t *testing.T) {
	host := sandbox.NewHost(sandbox.HostConfig{})
	good := writeBot(t, map[string]string{"bot.json": pyBot, "bot.py": "import sys\nprint(' '.join(sys.argv[1:]))\n"})
	missing := t.TempDir()
	cal, err := botexec.NewCalibrator(host, botexec.NewRuntimes(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = botexec.NewRuntimes().Find("python3", "python3")
	testenv.RequireErr(t, "python3", err)
	ctx := context.Background()

	t.Run("seats get calibration and their own runner", func(t *testing.T) {
		rs := &runOnce{}
		closed := 0
		m := Match{
			RuleSet: rs, Bots: []game.Bot{LoadBot(rulesets.Registry(), good), LoadBot(rulesets.Registry(), missing)}, Options: game.Options{Seed: 7},
			Calibrator: cal,
			SeatRunner: func(ctx context.Context, seat int, b game.Bot, _ game.Options) (sandbox.Runner, io.Closer, error) {
				return host, closeCounter{&closed}, nil
			},
		}
		sum, err := m.Play(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := sum.Players[0].Reason; got != "A /tmp --fast" {
			t.Errorf("bot received %q", got)
		}
		if !strings.Contains(sum.Players[1].Reason, "no bot.json") {
			t.Errorf("broken seat reason %q", sum.Players[1].Reason)
		}
		if rs.seen[0].Calibration <= 0 || rs.seen[1].Calibration != 0 {
			t.Errorf("calibrations %v, %v", rs.seen[0].Calibration, rs.seen[1].Calibration)
		}
		if r, ok := rs.seen[0].Runner.(withBotFolder); !ok || r.inner != host || r.mount != (sandbox.Mount{Source: good, Writable: true}) {
			t.Errorf("seat 1 runner %#v, want the seat runner with the bot folder mounted", rs.seen[0].Runner)
		}
		if rs.seen[1].Runner != nil {
			t.Error("a seat that failed to load got a runner")
		}
		if closed != 1 {
			t.Errorf("seat runners closed %d times, want 1", closed)
		}
	})
	t.Run("no limit skips calibration", func(t *testing.T) {
		rs := &runOnce{}
		m := Match{RuleSet: rs, Bots: []game.Bot{LoadBot(rulesets.Registry(), good), LoadBot(rulesets.Registry(), good)},
			Options: game.Options{NoLimit: true, Runner: host}, Calibrator: cal}
		if _, err := m.Play(ctx); err != nil {
			t.Fatal(err)
		}
		if rs.seen[0].Calibration != 0 {
			t.Errorf("calibration %v with NoLimit", rs.seen[0].Calibration)
		}
	})
	t.Run("wrong number of seats", func(t *testing.T) {
		_, err := Match{RuleSet: &runOnce{}, Bots: []game.Bot{LoadBot(rulesets.Registry(), good)}, Options: game.Options{Runner: host}}.Play(ctx)
		if !errors.Is(err, ErrSeats) || !strings.Contains(err.Error(), "takes 2 players, got 1") {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("no runner", func(t *testing.T) {
		_, err := Match{RuleSet: &runOnce{}, Bots: []game.Bot{LoadBot(rulesets.Registry(), good), LoadBot(rulesets.Registry(), good)}}.Play(ctx)
		if err == nil || !strings.Contains(err.Error(), "no runner for seat 1 (Annie)") {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("seat runner failure", func(t *testing.T) {
		m := Match{RuleSet: &runOnce{}, Bots: []game.Bot{LoadBot(rulesets.Registry(), good), LoadBot(rulesets.Registry(), good)},
			SeatRunner: func(context.Context, int, game.Bot, game.Options) (sandbox.Runner, io.Closer, error) {
				return nil, nil, errors.New("bwrap gone")
			}}
		if _, err := m.Play(ctx); err == nil || !strings.Contains(err.Error(), "bwrap gone") {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("seats start at once and a failed one closes the others", func(t *testing.T) {
		// Each seat's runner waits for the other's to be asked for: seats
		// prepared one after another would never both arrive.
		var arrived sync.WaitGroup
		arrived.Add(2)
		closed := 0
		m := Match{RuleSet: &runOnce{}, Bots: []game.Bot{LoadBot(rulesets.Registry(), good), LoadBot(rulesets.Registry(), good)},
			SeatRunner: func(_ context.Context, seat int, _ game.Bot, _ game.Options) (sandbox.Runner, io.Closer, error) {
				arrived.Done()
				together := make(chan struct{})
				go func() { arrived.Wait(); close(together) }()
				select {
				case <-together:
				case <-time.After(time.Minute):
					return nil, nil, errors.New("the other seat was never prepared beside this one")
				}
				if seat == 0 {
					return nil, nil, errors.New("bwrap gone")
				}
				return host, closeCounter{&closed}, nil
			}}
		_, err := m.Play(ctx)
		if err == nil || !strings.Contains(err.Error(), "runner for seat 1 (Annie): bwrap gone") {
			t.Errorf("error = %v", err)
		}
		if closed != 1 {
			t.Errorf("the started seat's runner closed %d times, want 1", closed)
		}
	})
	t.Run("a panicking rule set is an error", func(t *testing.T) {
		_, err := Match{RuleSet: &runOnce{panics: true}, Bots: []game.Bot{LoadBot(rulesets.Registry(), good), LoadBot(rulesets.Registry(), good)},
			Options: game.Options{Runner: host}}.Play(ctx)
		if err == nil || !strings.Contains(err.Error(), "engine failed: index out of range") {
			t.Errorf("error = %v", err)
		}
	})
}
