//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/testenv"
)

// TestOwnCPUWait checks what a result says of how long the command's own
// processes waited for a CPU, in a fresh sandbox and in a session: where
// the kernel keeps CPU pressure per cgroup (cgroup v2, or the v2 hierarchy
// a cgroup v1 machine mounts beside v1) it is measured, a sleeper waiting
// for nothing and processes that outnumber the CPUs most of the time;
// elsewhere it is not, and the worker falls back to the machine's pressure.
func TestOwnCPUWait(t *testing.T) {
	b := newTestBwrap(t)
	measured := Probe(context.Background()).Cgroups == "v2"
	if !measured {
		_, err := os.Stat(filepath.Join(cgroupRoot, "unified", "cpu.pressure"))
		measured = err == nil
	}
	wall := testenv.Scaled(1500 * time.Millisecond)
	// The sleeper's start waits for a CPU on a busy machine like any
	// process's; a longer turn keeps that a small share of it.
	sleeper := Cmd{Args: []string{"/bin/sh", "-c", "sleep 10"}, Limits: Limits{WallTime: 3 * wall}}
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
		if !measured {
			if r.StallKnown {
				t.Errorf("%s: a wait of %v measured without per-cgroup pressure", name, r.Stall)
			}
			return
		}
		if !r.StallKnown {
			t.Fatalf("%s: no wait measured, though the kernel keeps it per cgroup", name)
		}
		t.Logf("%s: waited %v of %v (CPU %v)", name, r.Stall, r.Wall, r.CPU)
		if waitedMost && r.Stall < r.Wall/2 {
			t.Errorf("%s: waited %v of %v", name, r.Stall, r.Wall)
		}
		// The worker's overload guard takes a wait over half the wall time
		// for a starved command (overloadStall in internal/jobs).
		if !waitedMost && r.Stall >= r.Wall/2 {
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
