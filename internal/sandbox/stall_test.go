//go:build linux

package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/testenv"
)

// TestOwnCPUWait checks what a result says of how long the command's own
// processes waited for a CPU, in a fresh sandbox and in a session: on
// cgroup v2 it is measured (a sleeper waits for nothing; processes that
// outnumber the CPUs wait most of the time), on cgroup v1 it is not, and
// the worker then falls back to the machine's pressure.
func TestOwnCPUWait(t *testing.T) {
	b := newTestBwrap(t)
	v2 := Probe(context.Background()).Cgroups == "v2"
	wall := testenv.Scaled(1500 * time.Millisecond)
	sleeper := Cmd{Args: []string{"/bin/sh", "-c", "sleep 5"}, Limits: Limits{WallTime: wall}}
	// Busy loops, twice as many as the CPUs the sandbox sees: whatever
	// else runs on the machine, at any moment some of them wait.
	hogs := Cmd{Args: []string{"/bin/sh", "-c",
		`n=$(($(nproc) * 2)); i=0; while [ $i -lt $n ]; do (while :; do :; done) & i=$((i+1)); done; wait`},
		Limits: Limits{WallTime: wall, Processes: 256}}

	check := func(t *testing.T, name string, r Result, waitedMost bool) {
		t.Helper()
		if !r.TimedOut {
			t.Fatalf("%s: not stopped at its wall time: %+v", name, r)
		}
		if !v2 {
			if r.StallKnown {
				t.Errorf("%s: a wait of %v measured without cgroup v2", name, r.Stall)
			}
			return
		}
		if !r.StallKnown {
			t.Fatalf("%s: no wait measured on cgroup v2", name)
		}
		t.Logf("%s: waited %v of %v (CPU %v)", name, r.Stall, r.Wall, r.CPU)
		if waitedMost && r.Stall < r.Wall/2 {
			t.Errorf("%s: waited %v of %v", name, r.Stall, r.Wall)
		}
		if !waitedMost && r.Stall > r.Wall/4 {
			t.Errorf("%s: a sleeper waited %v of %v for a CPU", name, r.Stall, r.Wall)
		}
	}

	t.Run("fresh sandbox", func(t *testing.T) {
		for _, c := range []struct {
			name       string
			cmd        Cmd
			waitedMost bool
		}{{"sleeper", sleeper, false}, {"hogs", hogs, true}} {
			r, err := b.Run(context.Background(), c.cmd)
			if err != nil {
				t.Fatal(err)
			}
			check(t, c.name, r, c.waitedMost)
		}
	})
	t.Run("session", func(t *testing.T) {
		s, err := b.NewSession(nil, Limits{Processes: 256})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// The hogs first: the sleeper's turn must not count their wait.
		for _, c := range []struct {
			name       string
			cmd        Cmd
			waitedMost bool
		}{{"hogs", hogs, true}, {"sleeper", sleeper, false}} {
			r, err := s.Run(context.Background(), c.cmd)
			if err != nil {
				t.Fatal(err)
			}
			check(t, c.name, r, c.waitedMost)
		}
	})
}
