//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Host runs commands directly on the machine, each in its own process group
// with rlimits, a wall-time kill of the group and capped output. It confines
// nothing: the command sees the user's files and network. It is meant for
// contestants running their own bots on their own machines.
type Host struct {
	cfg HostConfig
}

// NewHost returns a Host runner.
func NewHost(cfg HostConfig) *Host {
	return &Host{cfg: cfg}
}

// Run runs cmd to completion.
func (h *Host) Run(ctx context.Context, c Cmd) (Result, error) {
	p, err := h.start(ctx, c, nil)
	if err != nil {
		return Result{}, err
	}
	<-p.done
	return p.result, p.processErr
}

// Start starts cmd with its standard input and output connected to the
// returned Process. Cmd.Stdin is not used.
func (h *Host) Start(ctx context.Context, c Cmd) (Process, error) {
	return startProcess(ctx, c, h.start)
}

// start starts cmd and its watcher. With pipes nil, stdin comes from
// c.Stdin and stdout is captured.
func (h *Host) start(ctx context.Context, c Cmd, pipes *stdPipes) (*proc, error) {
	if len(c.Args) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	limits := WithDefaults(c.Limits, h.cfg.TurnDefaults)
	home := os.Getenv("HOME")
	if home == "" {
		home = os.TempDir()
	}
	env := minimalEnv(searchPath(c, os.Getenv("PATH")), home, c.Env)
	cmd := execCommand(c.Args, env)
	cmd.Dir = c.Dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p := &proc{cmd: cmd, limits: limits, stderr: newCapBuffer(limits.OutputBytes)}
	pipes.attach(cmd, c, p)
	cmd.Stderr = p.stderr
	cmd.WaitDelay = pipeGrace
	if err := startLimited(cmd, rlimitsFor(limits), nil); err != nil {
		pipes.closeAll()
		return nil, fmt.Errorf("start %s: %w", c.Args[0], err)
	}
	pipes.closeChildEnds()
	p.start = time.Now()
	pid := cmd.Process.Pid
	p.killTree = func() { killGroup(pid) }
	p.watch(ctx)
	return p, nil
}
