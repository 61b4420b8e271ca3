//go:build linux

package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// pipeGrace is how long the worker keeps reading the output pipes after the
// process tree was killed. Only a process that escaped the tree can still hold
// them open; it must not keep the turn from ending.
const pipeGrace = 200 * time.Millisecond

// proc is one started command watched until its whole tree has ended.
type proc struct {
	cmd    *exec.Cmd
	limits Limits
	stdout *capBuffer // nil when the caller reads stdout itself
	stderr *capBuffer
	start  time.Time

	// killTree kills every process of the command; it must be safe to call
	// more than once and after the tree is gone.
	killTree func()
	// cpu, when set, measures the tree's CPU time better than rusage.
	cpu func() (time.Duration, bool)
	// stall reads how long the tree's processes waited for a CPU (its own
	// cgroup's, so from zero), where the kernel measures it.
	stall func() (time.Duration, bool)
	// processLimitHit, when set, reports whether a fork failed at the
	// process limit.
	processLimitHit func() bool
	// memoryExceeded, when set, reports whether the memory limit was hit.
	memoryExceeded func() bool
	// watchdog, when set, is polled while the command runs; a non-empty
	// answer kills the tree and is added to Stderr as the reason.
	watchdog func() string
	// translateStatus maps bubblewrap's exit code 128+n back to signal n:
	// bwrap reports a command killed by a signal that way.
	translateStatus bool
	// cleanup runs once after the tree has ended and been measured.
	cleanup func()

	// killMu orders kills with the reaping of the started process: once it
	// is reaped its pid (the process group id) may be reused, and no kill
	// may be sent to it any more.
	killMu     sync.Mutex
	reaped     bool
	mu         sync.Mutex
	timedOut   bool
	cpuKilled  bool
	killReason string
	done       chan struct{}
	result     Result
	processErr error
}

// killGroup sends SIGKILL to the process group led by pid.
func killGroup(pid int) {
	_ = unix.Kill(-pid, unix.SIGKILL)
}

// watch starts the goroutine that enforces the wall time and the context,
// waits for the command, kills what is left of its tree and fills the
// result. p.done is closed when the result is ready.
func (p *proc) watch(ctx context.Context) {
	p.done = make(chan struct{})
	exited := p.exited()
	go func() {
		defer close(p.done)
		p.enforce(ctx, exited)
		wall := time.Since(p.start)
		p.killMu.Lock()
		p.killTree()
		p.reaped = true
		p.killMu.Unlock()
		err := p.cmd.Wait()
		p.finish(wall, err)
	}()
}

// exited returns a channel closed when the started process has ended. It
// waits without reaping, so the process group id cannot be reused before
// the rest of the group is killed.
func (p *proc) exited() <-chan struct{} {
	exited := make(chan struct{})
	pid := p.cmd.Process.Pid
	go func() {
		waitUnreaped(pid)
		close(exited)
	}()
	return exited
}

// waitUnreaped returns once the process pid has ended, without reaping
// it: until it is reaped, its pid (and its process group's id) can be no
// other process's.
func waitUnreaped(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// enforce kills the tree when the wall time passes, the context ends, the
// watchdog answers or the CPU time is over its limit, and returns when
// the started process has ended.
func (p *proc) enforce(ctx context.Context, exited <-chan struct{}) {
	// A fired timer or a done context is set to nil so the loop only
	// waits for the exit after the kill.
	done := ctx.Done()
	var timeout <-chan time.Time
	if p.limits.WallTime > 0 {
		t := time.NewTimer(p.limits.WallTime)
		defer t.Stop()
		timeout = t.C
	}
	var cpuTick, dogTick <-chan time.Time
	if p.cpu != nil && p.limits.CPUTime > 0 {
		tk := time.NewTicker(cpuPoll(p.limits.CPUTime))
		defer tk.Stop()
		cpuTick = tk.C
	}
	if p.watchdog != nil {
		tk := time.NewTicker(watchdogPoll)
		defer tk.Stop()
		dogTick = tk.C
	}
	for {
		select {
		case <-exited:
			return
		case <-timeout:
			timeout = nil
			p.killFor(func() { p.timedOut = true })
		case <-done:
			done = nil
			p.kill()
		case <-dogTick:
			if reason := p.watchdog(); reason != "" {
				dogTick = nil
				p.killFor(func() {
					if p.killReason == "" {
						p.killReason = reason
					}
				})
			}
		case <-cpuTick:
			if used, ok := p.cpu(); ok && used >= p.limits.CPUTime {
				cpuTick = nil
				p.killFor(func() { p.cpuKilled = true })
			}
		}
	}
}

// killFor records why under p.mu, then kills the tree.
func (p *proc) killFor(record func()) {
	p.mu.Lock()
	record()
	p.mu.Unlock()
	p.kill()
}

// watchdogPoll is how often the watchdog of a command is asked.
const watchdogPoll = 20 * time.Millisecond

// cpuPoll is how often the tree's CPU time is compared with its limit.
func cpuPoll(limit time.Duration) time.Duration {
	d := limit / 20
	if d < 5*time.Millisecond {
		d = 5 * time.Millisecond
	}
	if d > 100*time.Millisecond {
		d = 100 * time.Millisecond
	}
	return d
}

func (p *proc) kill() {
	p.killMu.Lock()
	defer p.killMu.Unlock()
	if !p.reaped {
		p.killTree()
	}
}

// finish fills p.result from the ended command.
func (p *proc) finish(wall time.Duration, waitErr error) {
	st := p.cmd.ProcessState
	r := Result{Wall: wall, ExitCode: -1}
	if st != nil {
		r.ExitCode = st.ExitCode()
		if ru, ok := st.SysUsage().(*syscall.Rusage); ok && ru != nil {
			r.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.Signal = unix.SignalName(ws.Signal())
			if r.Signal == "" {
				r.Signal = ws.Signal().String()
			}
		}
		if p.translateStatus && r.Signal == "" && r.ExitCode > 128 && r.ExitCode < 128+65 {
			sig := syscall.Signal(r.ExitCode - 128)
			r.Signal = unix.SignalName(sig)
		}
	} else if waitErr != nil {
		var ee *exec.ExitError
		if !errors.As(waitErr, &ee) {
			p.processErr = waitErr
		}
	}
	if p.cpu != nil {
		if used, ok := p.cpu(); ok && used > r.CPU {
			r.CPU = used
		}
	}
	if p.stall != nil {
		r.Stall, r.StallKnown = p.stall()
	}
	if p.processLimitHit != nil {
		r.ProcessLimitHit = p.processLimitHit()
	}
	if p.stdout != nil {
		var trunc bool
		r.Stdout, trunc = p.stdout.bytes()
		r.Truncated = r.Truncated || trunc
	}
	if p.stderr != nil {
		var trunc bool
		r.Stderr, trunc = p.stderr.bytes()
		r.Truncated = r.Truncated || trunc
	}
	p.mu.Lock()
	r.TimedOut = p.timedOut
	r.CPUExceeded = p.cpuKilled
	if p.killReason != "" {
		r.Stderr = append(r.Stderr, "\nsandbox: killed: "+p.killReason+"\n"...)
	}
	p.mu.Unlock()
	if p.limits.CPUTime > 0 && !r.TimedOut {
		switch r.Signal {
		case "SIGXCPU":
			r.CPUExceeded = true
		case "SIGKILL":
			// RLIMIT_CPU's hard limit sends SIGKILL one second after SIGXCPU.
			if r.CPU >= p.limits.CPUTime {
				r.CPUExceeded = true
			}
		}
	}
	if p.memoryExceeded != nil && p.memoryExceeded() {
		r.MemoryExceeded = true
	}
	if p.cleanup != nil {
		p.cleanup()
	}
	p.result = r
}

// procProcess is a started long-lived command.
type procProcess struct {
	p      *proc
	stdin  *os.File
	stdout *os.File
}

func (pp *procProcess) Stdin() io.WriteCloser { return pp.stdin }
func (pp *procProcess) Stdout() io.Reader     { return pp.stdout }

// Wait waits for the tree to end. It closes the stdout pipe, so the caller
// reads what it needs before calling Wait.
func (pp *procProcess) Wait() (Result, error) {
	<-pp.p.done
	_ = pp.stdin.Close()
	_ = pp.stdout.Close()
	return pp.p.result, pp.p.processErr
}

// Kill ends the whole process tree; Wait then reports the result.
func (pp *procProcess) Kill() error {
	pp.p.kill()
	return nil
}
