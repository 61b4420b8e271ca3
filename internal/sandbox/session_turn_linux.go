//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// One turn of a session: the request to the supervisor, and the wait for
// its reply under the limits watched from outside.

// request is the supervisor's line for c.
func (s *Session) request(c Cmd, limits Limits) ([]byte, error) {
	req := sessionRequest{Args: c.Args, Dir: c.Dir, Env: minimalEnv(searchPath(c, sandboxPath), "/tmp", c.Env), Limits: limits,
		CgroupMemory: s.cg != nil && limits.MemoryBytes > 0, Nice: s.nice}
	if req.Dir == "" {
		req.Dir = "/tmp"
	}
	if c.Stdin != nil {
		var err error
		if req.Stdin, err = io.ReadAll(io.LimitReader(c.Stdin, 16<<20)); err != nil {
			return nil, fmt.Errorf("sandbox: read stdin: %w", err)
		}
	}
	data, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return data, nil
}

// replyLine is the supervisor's answer as read, not yet decoded.
type replyLine struct {
	line []byte
	err  error
}

// readReply reads the supervisor's answer to the command just sent. The
// goroutine, new at every turn, only reads the line: decoding it there
// grew that goroutine's small stack by copying at every turn, where the
// turn's own goroutine (decode) has grown its stack already.
func (s *Session) readReply() <-chan replyLine {
	replies := make(chan replyLine, 1)
	go func() {
		line, err := s.out.ReadBytes('\n')
		replies <- replyLine{line, err}
	}()
	return replies
}

// decode is the supervisor's answer; an answer that cannot be read says
// the session ended.
func (l replyLine) decode() sessionReply {
	var rep sessionReply
	err := l.err
	if err == nil {
		err = json.Unmarshal(l.line, &rep)
	}
	if err != nil {
		rep = sessionReply{Error: "session ended: " + err.Error()}
		rep.Result.ExitCode = -1
	}
	return rep
}

// await waits for the supervisor's answer while enforcing, from outside,
// the limits the session's cgroup does not hold per command. It ends the
// session when the supervisor stops answering or the context ends. over
// reports that the watch stopped the command (w then says why).
func (s *Session) await(ctx context.Context, limits Limits, w *turnWatch, dw *diskWatcher, disk func() string, start time.Time) (r Result, over bool, err error) {
	replies := s.readReply()
	// The supervisor enforces the wall time; this deadline only catches a
	// supervisor that stopped answering.
	deadline := time.NewTimer(limits.WallTime + 5*time.Second)
	if limits.WallTime == 0 {
		deadline.Stop()
	}
	defer deadline.Stop()
	stop := make(chan struct{})
	defer close(stop)
	overC := w.run(s.cg, limits, dw, disk, stop)
	killed := func(timedOut bool) Result {
		s.breakSession()
		<-replies
		return Result{ExitCode: -1, Signal: "SIGKILL", TimedOut: timedOut, Wall: time.Since(start)}
	}
	for {
		select {
		case line := <-replies:
			rep := line.decode()
			if strings.HasPrefix(rep.Error, "session ended") {
				s.breakSession()
				return Result{ExitCode: -1, Signal: "SIGKILL", Wall: time.Since(start),
					Stderr: []byte("sandbox: the session's supervisor ended during the command\n")}, over, nil
			}
			if rep.Error != "" {
				return Result{}, over, errors.New(rep.Error)
			}
			// A verdict reached before the answer still counts.
			select {
			case <-overC:
				over = true
			default:
			}
			return rep.Result, over, nil
		case <-deadline.C:
			return killed(true), over, nil
		case <-ctx.Done():
			return killed(false), over, nil
		case <-overC:
			over, overC = true, nil
			if s.cg == nil {
				// Without cgroups the command's processes cannot be told
				// from the supervisor: end the whole sandbox.
				return killed(false), over, nil
			}
			s.killCommand()
		}
	}
}

// measure completes r from the session's cgroup: the command's CPU time,
// how long its processes waited for a CPU, and whether the kernel killed
// for memory during it; with over, why the watch stopped it.
func (s *Session) measure(r *Result, w *turnWatch, over bool) {
	if s.cg != nil {
		if used, ok := s.cg.cpu(); ok {
			r.CPU = used - w.cpu0
		}
		if stall, ok := s.cg.stall(); ok {
			r.Stall, r.StallKnown = stall-w.stall0, true
		}
		if s.cg.oomKills() > w.oom0 {
			r.MemoryExceeded = true
		}
		// Read once a turn, at its end: only this turn's command forked
		// since the last reading.
		if n := s.cg.forkFailures(); n > s.forkFailures {
			r.ProcessLimitHit, s.forkFailures = true, n
		}
	}
	if over {
		w.apply(r)
	}
}
