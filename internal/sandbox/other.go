//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// Host runs commands directly on the machine. Outside Linux it enforces
// the wall time (killing the process group; on Windows the process) and
// the output cap only.
type Host struct {
	cfg HostConfig
}

// NewHost returns a Host runner.
func NewHost(cfg HostConfig) *Host { return &Host{cfg: cfg} }

// Run runs cmd to completion.
func (h *Host) Run(ctx context.Context, c Cmd) (Result, error) {
	if len(c.Args) == 0 {
		return Result{}, errors.New("sandbox: empty command")
	}
	limits := WithDefaults(c.Limits, h.cfg.TurnDefaults)
	env := minimalEnv(searchPath(c, os.Getenv("PATH")), os.Getenv("HOME"), append(platformEnv(), c.Env...))
	cmd := execCommand(c.Args, env)
	cmd.Dir = c.Dir
	cmd.Env = env
	cmd.Stdin = c.Stdin
	stdout, stderr := newCapBuffer(limits.OutputBytes), newCapBuffer(limits.OutputBytes)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownGroup(cmd)
	cmd.WaitDelay = 200 * time.Millisecond
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("start %s: %w", c.Args[0], err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var timeout <-chan time.Time
	if limits.WallTime > 0 {
		t := time.NewTimer(limits.WallTime)
		defer t.Stop()
		timeout = t.C
	}
	var r Result
	select {
	case <-waited:
	case <-timeout:
		r.TimedOut = true
		killTree(cmd)
		<-waited
	case <-ctx.Done():
		killTree(cmd)
		<-waited
	}
	r.Wall = time.Since(start)
	killTree(cmd)
	r.ExitCode = cmd.ProcessState.ExitCode()
	r.Signal = signalName(cmd.ProcessState)
	r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	var t1, t2 bool
	r.Stdout, t1 = stdout.bytes()
	r.Stderr, t2 = stderr.bytes()
	r.Truncated = t1 || t2
	return r, nil
}

// Start is not available outside Linux.
func (h *Host) Start(ctx context.Context, c Cmd) (Process, error) {
	return nil, errors.New("sandbox: long-lived bot processes need Linux")
}

// DefaultRuntimePaths lists nothing outside Linux.
func DefaultRuntimePaths() []string { return nil }

// Bwrap needs Linux.
type Bwrap struct{}

// NewBwrap fails outside Linux.
func NewBwrap(cfg BwrapConfig) (*Bwrap, error) {
	return nil, errors.New("sandbox: bubblewrap needs Linux")
}

// Run is never reached: NewBwrap fails.
func (b *Bwrap) Run(ctx context.Context, c Cmd) (Result, error) {
	return Result{}, errors.New("sandbox: bubblewrap needs Linux")
}

// Start is never reached: NewBwrap fails.
func (b *Bwrap) Start(ctx context.Context, c Cmd) (Process, error) {
	return nil, errors.New("sandbox: bubblewrap needs Linux")
}

// Probe reports that nothing can be enforced outside Linux.
func Probe(ctx context.Context) Capabilities {
	return Capabilities{Problems: []string{"the sandbox needs Linux (bubblewrap, namespaces, cgroups)"}}
}

// Session needs Linux.
type Session struct{}

// NewSession fails outside Linux.
func (b *Bwrap) NewSession(mounts []Mount, limits Limits) (*Session, error) {
	return nil, errors.New("sandbox: bubblewrap needs Linux")
}

// Run is never reached: NewSession fails.
func (s *Session) Run(ctx context.Context, c Cmd) (Result, error) {
	return Result{}, errors.New("sandbox: bubblewrap needs Linux")
}

// Start is never reached: NewSession fails.
func (s *Session) Start(ctx context.Context, c Cmd) (Process, error) {
	return nil, errors.New("sandbox: bubblewrap needs Linux")
}

// SessionStats counts a session's commands.
type SessionStats struct {
	Commands int
	Fresh    int
}

// Stats is always zero outside Linux.
func (s *Session) Stats() SessionStats { return SessionStats{} }

// Close does nothing outside Linux.
func (s *Session) Close() error { return nil }
