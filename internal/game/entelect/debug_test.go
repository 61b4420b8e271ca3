package entelect

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// noisyBot is the sweep bot writing text to stderr before every turn.
func noisyBot(t *testing.T, text string) game.Bot {
	t.Helper()
	b := scriptBot(t, "sweep")
	script := b.Command[1]
	b.Command = []string{"sh", "-c", `printf '%s' "$1" >&2; script=$2; shift 2; exec sh "$script" "$@"`, "noisy", text, script}
	return b
}

// turnsWriting counts A's round folders whose log.txt holds text: the
// turns in which A wrote it to stderr.
func turnsWriting(t *testing.T, replay, text string) int {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(replay, "*", "A", "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range logs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), text) {
			n++
		}
	}
	return n
}

func TestPlayDebugHalts(t *testing.T) {
	// §6 --debug: the engine halts after showing the turn's log, exactly
	// when a bot wrote more than white space to stderr.
	tests := []struct {
		name      string
		stderr    string
		debug     bool
		wantHalts bool
	}{
		{name: "debug, stderr every turn", stderr: "thinking hard\n", debug: true, wantHalts: true},
		{name: "debug, white space only", stderr: " \n\t\n", debug: true},
		{name: "no debug", stderr: "thinking hard\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var clog bytes.Buffer
			halts := 0
			halt := func(ctx context.Context) error {
				halts++
				// The turn's log is shown before the halt, once per halt.
				if got := strings.Count(clog.String(), "Bot A wrote to stderr in "); got != halts {
					t.Errorf("halt %d after %d turn logs were shown", halts, got)
				}
				return ctx.Err()
			}
			opts := game.Options{Seed: 3, Debug: tt.debug, EngineLog: &clog, Halt: halt}
			sum, replay := playScripts(t, opts, noisyBot(t, tt.stderr), scriptBot(t, "sweep", "reverse"))
			if sum.Rounds < 2 {
				t.Fatalf("summary %+v", sum)
			}
			want := 0
			if tt.wantHalts {
				want = turnsWriting(t, replay, strings.TrimSpace(tt.stderr))
				if want < sum.Rounds {
					t.Fatalf("A wrote to stderr in %d turns of %d rounds", want, sum.Rounds)
				}
			}
			if halts != want {
				t.Errorf("halted %d times, want %d", halts, want)
			}
			if strings.Contains(clog.String(), "Bot B wrote to stderr") {
				t.Error("B wrote nothing to stderr but its log was shown")
			}
		})
	}
}

func TestPlayDebugHaltErrorEndsMatch(t *testing.T) {
	// A halt that fails (the user pressed Ctrl-C) ends the match as a
	// cancellation does.
	opts := game.Options{
		Debug: true, ReplayDir: t.TempDir(), Size: 1, Runner: sandbox.NewHost(sandbox.HostConfig{}),
		Halt: func(context.Context) error { return context.Canceled },
	}
	_, err := New().Play(context.Background(), []game.Bot{noisyBot(t, "hello\n"), scriptBot(t, "sweep")}, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("play: %v, want it cancelled", err)
	}
}
