// Package gametest holds checks that every rule set's tests share.
package gametest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/game"
)

// DebugHalts checks what Options.Debug means for a rule set whose bots
// write to stderr and whose bot logs mark each kept stderr with
// "stderr:\n": with Debug, every kept stderr is shown on the engine log and
// then halts, once; without it, nothing halts. play plays a match with the
// options given; at least minStderr outputs must have been kept.
func DebugHalts(t *testing.T, minStderr int, play func(t *testing.T, opts game.Options) *game.Summary) {
	t.Helper()
	for _, debug := range []bool{true, false} {
		t.Run(map[bool]string{true: "debug", false: "no debug"}[debug], func(t *testing.T) {
			t.Parallel()
			var engine bytes.Buffer
			halts := 0
			halt := func(ctx context.Context) error {
				halts++
				if got := strings.Count(engine.String(), " wrote to stderr:\n"); got != halts {
					t.Errorf("halt %d after %d stderr outputs were shown", halts, got)
				}
				return ctx.Err()
			}
			sum := play(t, game.Options{Debug: debug, EngineLog: &engine, Halt: halt})
			var logs strings.Builder
			for _, p := range sum.Players {
				logs.WriteString(p.Log)
			}
			kept := strings.Count(logs.String(), "stderr:\n")
			if kept < minStderr {
				t.Fatalf("%d stderr outputs in the bots' logs, want at least %d:\n%s", kept, minStderr, logs.String())
			}
			want := 0
			if debug {
				want = kept
			}
			if halts != want {
				t.Errorf("halted %d times, want %d", halts, want)
			}
		})
	}
}
