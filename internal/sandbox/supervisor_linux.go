//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// supervisorEnv marks the worker's own binary started as the supervisor of
// a Session, inside the sandbox.
const supervisorEnv = "BROADSIDE_SANDBOX_SUPERVISOR"

var errEmpty = errors.New("sandbox: empty command")

// The supervisor is the worker's binary started again inside the sandbox as
// its PID 1; it takes over before main runs.
func init() {
	if os.Getpid() != 1 {
		return
	}
	switch os.Getenv(supervisorEnv) {
	case "1":
		os.Exit(supervise(os.Stdin, os.Stdout))
	case "relay":
		os.Exit(relay(os.Args[1:]))
	}
}

// supervisorBinary is the worker's own executable, which becomes the
// supervisor or the relay inside a sandbox.
func supervisorBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the supervisor binary: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", fmt.Errorf("find the supervisor binary: %w", err)
	}
	return exe, nil
}

// relay is PID 1 of a sandbox with Cmd.Network: it forwards connections to
// 127.0.0.1:egressPort to the egress proxy's socket and runs the command,
// exiting as it did (128+n when killed by signal n, as bubblewrap does).
func relay(args []string) int {
	swallowSignals()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "sandbox relay: no command")
		return 125
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+egressPort)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandbox relay:", err)
		return 125
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go relayConn(c)
		}
	}()
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, supervisorEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox relay:", err)
		return 127
	}
	_ = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}

// relayConn copies one connection to and from the egress proxy.
func relayConn(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("unix", egressSocket)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
	<-done
	<-done
}

// sessionRequest is one command sent to the supervisor.
type sessionRequest struct {
	Args   []string
	Dir    string
	Env    []string
	Stdin  []byte
	Limits Limits
	// CgroupMemory says the session's cgroup bounds memory, so the command
	// gets no RLIMIT_DATA and going over is reported as MemoryExceeded.
	CgroupMemory bool
	// Nice is the priority the command runs at: the worker's, below the
	// supervisor's own.
	Nice int
}

// sessionReply is what happened to it.
type sessionReply struct {
	Result Result
	Error  string
}

// supervise runs the commands read from in, one at a time, and writes each
// result to out. Between commands it kills every other process of the
// sandbox, so nothing of a turn survives into the next.
func supervise(in *os.File, out *os.File) int {
	// Bots run as the same user: they must neither trace nor signal the
	// supervisor into doing something else.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	swallowSignals()
	reserveThreads(supervisorThreads)
	dec := json.NewDecoder(bufio.NewReader(in))
	enc := json.NewEncoder(out)
	for {
		var req sessionRequest
		if err := dec.Decode(&req); err != nil {
			return 0
		}
		var rep sessionReply
		r, err := superviseOne(req)
		rep.Result = r
		if err != nil {
			rep.Error = err.Error()
		}
		if err := enc.Encode(&rep); err != nil {
			return 1
		}
	}
}

// supervisorThreads is how many OS threads the supervisor starts before
// its first command: more than it ever has busy at once (a command's wait,
// the request pipe's read, the runtime's monitor and one per CPU it may
// use), within the 32 processes its session's cgroup adds for it.
const supervisorThreads = 16

// reserveThreads makes the Go runtime start n OS threads now, which it then
// keeps idle for later use. A fork bomb shares the session's pids limit
// with the supervisor and can take every process it allows; a Go program
// that needs a new thread then dies ("failed to create new OS thread"),
// and the session with it, at the moment its command's time runs out.
func reserveThreads(n int) {
	var started, done sync.WaitGroup
	release := make(chan struct{})
	started.Add(n)
	done.Add(n)
	for range n {
		go func() {
			defer done.Done()
			// A goroutine locked to its thread keeps it to itself, so the
			// runtime starts another for each; unlocked before the
			// goroutine ends, the thread stays with the runtime.
			runtime.LockOSThread()
			started.Done()
			<-release
			runtime.UnlockOSThread()
		}()
	}
	started.Wait()
	close(release)
	done.Wait()
}

// swallowSignals makes every signal a bot can send to PID 1 harmless: the
// kernel already drops those PID 1 has no handler for, but the Go runtime
// has handlers that exit or crash on many (SIGTERM, SIGABRT, a SIGSEGV sent
// by kill). Notify rather than Ignore: ignored signals stay ignored across
// exec, and the commands must start with default dispositions.
func swallowSignals() {
	var sigs []os.Signal
	for n := syscall.Signal(1); n <= 64; n++ {
		switch n {
		case syscall.SIGKILL, syscall.SIGSTOP, syscall.SIGCHLD, syscall.SIGURG, syscall.SIGPROF, 32, 33:
			// Not catchable, needed by os/exec, or used by the runtime.
			continue
		}
		sigs = append(sigs, n)
	}
	ch := make(chan os.Signal, 16)
	signal.Notify(ch, sigs...)
	go func() {
		for range ch {
		}
	}()
}

func superviseOne(req sessionRequest) (Result, error) {
	defer reapAll()
	if len(req.Args) == 0 {
		return Result{}, errEmpty
	}
	cmd := execCommand(req.Args, req.Env)
	cmd.Dir = req.Dir
	cmd.Env = req.Env
	cmd.Stdin = bytes.NewReader(req.Stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &proc{cmd: cmd, limits: req.Limits, stdout: newCapBuffer(req.Limits.OutputBytes), stderr: newCapBuffer(req.Limits.OutputBytes)}
	cmd.Stdout = p.stdout
	cmd.Stderr = p.stderr
	cmd.WaitDelay = pipeGrace
	rl := rlimitsFor(req.Limits)
	if req.CgroupMemory {
		rl = withoutResource(rl, unix.RLIMIT_DATA)
	}
	if err := startLimited(cmd, rl, func(pid int) error { return setNice(pid, req.Nice) }); err != nil {
		return Result{}, err
	}
	p.start = time.Now()
	// As PID 1 of the namespace, kill(-1) reaches every other process in
	// the sandbox and nothing outside it.
	p.killTree = func() { _ = unix.Kill(-1, unix.SIGKILL) }
	p.watch(context.Background())
	<-p.done
	return p.result, p.processErr
}

// reapAll waits for every killed process, so the next command starts in an
// empty sandbox.
func reapAll() {
	_ = unix.Kill(-1, unix.SIGKILL)
	for {
		_, err := unix.Wait4(-1, nil, 0, nil)
		if err == unix.ECHILD {
			return
		}
		if err != nil && err != unix.EINTR {
			return
		}
	}
}
