//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/testenv"
)

// TestOwnCPUWait checks what a result says of how long the command's
// processes waited for a CPU while none of them ran, in a fresh sandbox and
// in a session. Where the kernel keeps CPU pressure per cgroup (cgroup v2,
// or the v2 hierarchy a cgroup v1 machine mounts beside v1) it is measured:
// a sleeper waits for nothing however busy the machine is, and a busy loop
// among more busy processes outside than the machine has CPUs waits most
// of its time. Elsewhere it is not, and the worker falls back to the
// machine's pressure.
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
	sleeper := Cmd{Args: []string{"/bin/sh", "-c", "sleep 3600"}, Limits: Limits{WallTime: 3 * wall}}
	loop := Cmd{Args: []string{"/bin/sh", "-c", "while :; do :; done"}, Limits: Limits{WallTime: wall}}

	check := func(t *testing.T, name string, r Result, starved bool) {
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
		// The worker's overload guard takes a wait of a quarter of the
		// wall time or more for a starved command (overloadOwnStall in
		// internal/jobs).
		if starved != (r.Stall >= r.Wall/4) {
			t.Errorf("%s: waited %v of %v, want starved: %v", name, r.Stall, r.Wall, starved)
		}
	}
	// run plays the sleeper, then the loop with the machine's CPUs four
	// times over busy outside the sandbox.
	run := func(t *testing.T, runner Runner) {
		r, err := runner.Run(context.Background(), sleeper)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "sleeper", r, false)
		stop := busyOutside(t, 4*runtime.NumCPU())
		r, err = runner.Run(context.Background(), loop)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		check(t, "starved loop", r, true)
	}
	t.Run("fresh sandbox", func(t *testing.T) { run(t, b) })
	t.Run("session", func(t *testing.T) {
		s, err := b.NewSession(nil, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		run(t, s)
	})
}

// busyOutside starts n busy loops on the host and returns what stops them.
// Each is in a session of its own, as the sandboxed command is: where the
// kernel groups processes by session for fairness (autogroup), loops in
// the test's own session would share one CPU's worth between them.
func busyOutside(t *testing.T, n int) func() {
	t.Helper()
	var cmds []*exec.Cmd
	stop := func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
		cmds = nil
	}
	t.Cleanup(stop)
	for i := 0; i < n; i++ {
		c := exec.Command("/bin/sh", "-c", "while :; do :; done")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	return stop
}
