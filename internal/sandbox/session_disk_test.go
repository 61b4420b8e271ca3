//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/testenv"
)

// TestSessionDiskBudget plays turns that each stay within the per-command
// disk bound: together they may not write more than the session's bound,
// while a bot that rewrites the same state file every turn is never cut.
func TestSessionDiskBudget(t *testing.T) {
	caps := Probe(context.Background())
	testenv.Require(t, "an enforced sandbox", caps.Enforced(), caps.String())
	b, err := NewBwrap(BwrapConfig{DiskBytes: 1 << 20, SessionDiskBytes: 3 << 20})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		// script writes in turn n, with $0 the bot folder and $1 the turn's
		// round folder; it ends by creating ran-n in the round folder.
		script string
		// cut is the first turn that must not run; 0: every turn runs. The
		// turn before it goes over the bound: it may be killed as it writes
		// or end before the watchdog looks.
		cut int
	}{
		{"new files in the round folders add up", `head -c 900000 /dev/zero > "$1/out.bin"`, 5},
		{"new files in the bot's folder add up", `head -c 900000 /dev/zero > "$0/out-$2.bin"`, 5},
		{"rewriting one state file each turn does not", `head -c 900000 /dev/zero > "$0/state.bin"`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			bot, replay := filepath.Join(root, "bot"), filepath.Join(root, "replay")
			for _, d := range []string{bot, replay} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			s, err := b.NewSession([]Mount{{Source: bot, Writable: true}, {Source: replay, Writable: true, PerCommand: true}},
				Limits{WallTime: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for n := 1; n <= 8; n++ {
				round := filepath.Join(replay, fmt.Sprintf("round-%d", n))
				if err := os.Mkdir(round, 0o755); err != nil {
					t.Fatal(err)
				}
				r, err := s.Run(context.Background(), Cmd{
					Args:   []string{"/bin/sh", "-c", tc.script + ` && touch "$1/ran"`, bot, round, fmt.Sprint(n)},
					Dir:    bot,
					Mounts: []Mount{{Source: round, Writable: true}},
				})
				if err != nil {
					t.Fatal(err)
				}
				_, statErr := os.Stat(filepath.Join(round, "ran"))
				ran := statErr == nil
				cutShort := strings.Contains(string(r.Stderr), "over the session")
				switch {
				case tc.cut != 0 && n >= tc.cut:
					if ran || !cutShort {
						t.Errorf("turn %d ran (%v) past the session's bound: exit %d, %s", n, ran, r.ExitCode, r.Stderr)
					}
				case tc.cut != 0 && n == tc.cut-1 && cutShort:
				case !ran || r.ExitCode != 0:
					t.Errorf("turn %d did not run: exit %d, %s", n, r.ExitCode, r.Stderr)
				}
			}
		})
	}
}

// TestFileClockAfter checks the clock a session's next command counts its
// writes from: past the tick its previous command ended in, so a file
// written in that tick counts for that command only.
func TestFileClockAfter(t *testing.T) {
	for range 20 {
		end := fileClock()
		since := fileClockAfter(end)
		if since.Sec < end.Sec || (since.Sec == end.Sec && since.Nsec <= end.Nsec) {
			t.Fatalf("fileClockAfter(%v) = %v, not past it", end, since)
		}
	}
	// A clock set back does not hold the next command for long.
	ahead := fileClock()
	ahead.Sec += 3600
	start := time.Now()
	fileClockAfter(ahead)
	if waited := time.Since(start); waited < fileClockWait {
		t.Fatalf("returned after %v, before the clock passed and before %v", waited, fileClockWait)
	}
}
