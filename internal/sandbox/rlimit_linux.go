//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// rlimit is one resource limit to set on a started command.
type rlimit struct {
	resource int
	value    uint64
}

// rlimitsFor turns Limits into rlimits. The CPU limit is rounded up to whole
// seconds (the unit of RLIMIT_CPU); the hard limit is one second above the
// soft one so the command first gets SIGXCPU, then SIGKILL. Memory is bounded
// with RLIMIT_DATA rather than RLIMIT_AS: since Linux 4.7 RLIMIT_DATA counts
// private writable mappings, which catches large allocations while leaving
// the big PROT_NONE reservations of the JVM, V8 and the Go runtime alone
// (RLIMIT_AS makes those runtimes fail to start). RLIMIT_NPROC is not used:
// it counts every process of the user on the machine, not of the tree.
func rlimitsFor(l Limits) []rlimit {
	var out []rlimit
	if l.CPUTime > 0 {
		secs := uint64((l.CPUTime + 999_999_999) / 1_000_000_000)
		out = append(out, rlimit{unix.RLIMIT_CPU, secs})
	}
	if l.MemoryBytes > 0 {
		out = append(out, rlimit{unix.RLIMIT_DATA, uint64(l.MemoryBytes)})
	}
	if l.FileSizeBytes > 0 {
		out = append(out, rlimit{unix.RLIMIT_FSIZE, uint64(l.FileSizeBytes)})
	}
	if l.OpenFiles > 0 {
		out = append(out, rlimit{unix.RLIMIT_NOFILE, uint64(l.OpenFiles)})
	}
	return out
}

// applyRlimits sets the limits on process pid.
func applyRlimits(pid int, limits []rlimit) error {
	for _, l := range limits {
		lim := unix.Rlimit{Cur: l.value, Max: l.value}
		if l.resource == unix.RLIMIT_CPU {
			lim.Max = l.value + 1
		}
		if err := unix.Prlimit(pid, l.resource, &lim, nil); err != nil {
			return fmt.Errorf("set rlimit %d on pid %d: %w", l.resource, pid, err)
		}
	}
	return nil
}

// startLimited starts cmd with the rlimits applied before its first
// instruction runs. syscall.SysProcAttr cannot set rlimits, and setting them
// on the worker before fork would limit the worker itself, so the child is
// started traced: it stops right after execve, the limits are set on it with
// prlimit, and it is released. This is race free and needs no helper binary.
// Where ptrace is forbidden (Yama scope 3, some containers) the limits are
// set right after the start instead, which leaves the first instant of the
// program unlimited.
//
// setup, when not nil, runs on the stopped child too (to place it in its
// cgroups before it runs).
func startLimited(cmd *exec.Cmd, limits []rlimit, setup func(pid int) error) error {
	if len(limits) == 0 && setup == nil {
		return cmd.Start()
	}
	err := startTraced(cmd, limits, setup)
	if err == nil || !errors.Is(err, errPtraceDenied) {
		return err
	}
	cmd.SysProcAttr.Ptrace = false
	if err := cmd.Start(); err != nil {
		return err
	}
	err = applyRlimits(cmd.Process.Pid, limits)
	if err == nil && setup != nil {
		err = setup(cmd.Process.Pid)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	return nil
}

var errPtraceDenied = errors.New("ptrace denied")

func startTraced(cmd *exec.Cmd, limits []rlimit, setup func(pid int) error) error {
	// The tracer is the thread that forked; every ptrace call must come from
	// it, so the goroutine stays on its thread until the child is released.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd.SysProcAttr.Ptrace = true
	if err := cmd.Start(); err != nil {
		if errors.Is(err, syscall.EPERM) {
			return errPtraceDenied
		}
		return err
	}
	pid := cmd.Process.Pid
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(pid, &ws, unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			_ = cmd.Process.Kill()
			return fmt.Errorf("wait for traced start of pid %d: %w", pid, err)
		}
		break
	}
	if !ws.Stopped() {
		// The child already ended and was reaped here; os/exec cannot
		// report on it any more.
		return fmt.Errorf("pid %d ended before it could be limited (status %v)", pid, ws)
	}
	limErr := applyRlimits(pid, limits)
	if limErr == nil && setup != nil {
		limErr = setup(pid)
	}
	if limErr != nil {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	if err := unix.PtraceDetach(pid); err != nil && limErr == nil {
		_ = unix.Kill(pid, unix.SIGKILL)
		limErr = fmt.Errorf("release pid %d: %w", pid, err)
	}
	if limErr != nil {
		_ = cmd.Wait()
		return limErr
	}
	return nil
}
