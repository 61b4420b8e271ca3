//go:build linux

package sandbox

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// turnWatch enforces, from the worker, the limits of one session command
// that the kernel does not enforce per command: the session's cgroup holds
// the supervisor and every command, so the command's share is its growth
// since it started.
type turnWatch struct {
	cpu0   time.Duration
	stall0 time.Duration
	mem0   int64
	oom0   int64
	reason string
	cpu    bool
	memory bool
	// cpuAt is when the CPU time was last compared with the limit: it is
	// compared as often as a fresh sandbox's (cpuPoll), not at every tick.
	cpuAt time.Time
	// memAt is when the memory is next compared with the limit (memoryPoll).
	memAt time.Time
}

// memoryPoll is how long the memory may go unread when the command holds
// headroom bytes less than its limit: the time a command growing as fast
// as the session's margin over its limit allows per tick (supervisorMemory
// per watchdogPoll, the fastest the watch can stop before the kernel does)
// takes to use up the headroom, between one tick and 100 ms. Such a command
// is seen within a tick of crossing its limit, as with a read at every
// tick; a bot far below its limit is read five times less often.
func memoryPoll(headroom int64) time.Duration {
	d := time.Duration(headroom / supervisorMemory * int64(watchdogPoll))
	return min(max(d, watchdogPoll), 100*time.Millisecond)
}

// cpuDue reports whether the CPU time is to be compared with limit now.
func (w *turnWatch) cpuDue(limit time.Duration) bool {
	if limit <= 0 {
		return false
	}
	// Within a tick of falling due counts as due, so that the CPU and
	// memory checks share a wake-up of a sleeping watch (see run).
	now := time.Now()
	if now.Sub(w.cpuAt) < cpuPoll(limit)-watchdogPoll {
		return false
	}
	w.cpuAt = now
	return true
}

func newTurnWatch(cg *cgroupSet) *turnWatch {
	w := &turnWatch{}
	if cg != nil {
		w.cpu0, _ = cg.cpu()
		w.stall0, _ = cg.stall()
		w.mem0, _ = cg.memoryUsage()
		w.oom0 = cg.oomKills()
	}
	return w
}

// run checks the command in a goroutine of its own and closes the
// returned channel once it went over a limit; the goroutine owns w until
// then. It ends when stop is closed: a check in progress (a walk of a large
// bot folder) then finishes on its own, and the command's answer, which
// has arrived, never waits for it.
//
// It checks every watchdogPoll, except while the disk watch is quiet
// (diskWatcher.quiet): then it sleeps until the command changes something
// in its folders, or until the next check of its CPU time, memory or
// folders falls due. A bot's turn is a few changes (its command file), so
// its watch wakes a few times rather than at every tick: on a virtual
// machine a wake-up of the worker costs more than the check it makes.
func (w *turnWatch) run(cg *cgroupSet, l Limits, disk *diskWatcher, check func() string, stop <-chan struct{}) <-chan struct{} {
	over := make(chan struct{})
	// The CPU time and memory were read as the command started (cpu0,
	// mem0): the first comparisons fall due a poll after that.
	now := time.Now()
	w.cpuAt = now
	if l.MemoryBytes > 0 {
		w.memAt = now.Add(memoryPoll(l.MemoryBytes))
	}
	go func() {
		// cancel ends a wait for a change under way once the watch ends.
		cancel := make(chan struct{})
		defer close(cancel)
		var changed chan error // a wait for a change under way
		canWait := disk != nil
		// next is the time to the next check: watchdogPoll, or while the
		// disk watch is quiet the time until a check falls due, with a
		// wait for a change under way meanwhile.
		next := func() time.Duration {
			if !canWait {
				return watchdogPoll
			}
			until, watch, ok := disk.quiet()
			if !ok {
				return watchdogPoll
			}
			if changed == nil {
				ch := make(chan error, 1)
				go func() { ch <- watch.waitChange(cancel) }()
				changed = ch
			}
			return max(watchdogPoll, time.Until(w.due(cg, l, until)))
		}
		tick := time.NewTimer(next())
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			case err := <-changed:
				changed = nil
				if err != nil {
					canWait = false // ticks from now on
				}
			}
			if w.check(cg, l, check); w.reason != "" {
				close(over)
				return
			}
			tick.Reset(next())
		}
	}()
	return over
}

// due is the earliest of until and the times the CPU time and memory are
// next to be compared with their limits.
func (w *turnWatch) due(cg *cgroupSet, l Limits, until time.Time) time.Time {
	if cg != nil && l.CPUTime > 0 {
		until = earliest(until, w.cpuAt.Add(cpuPoll(l.CPUTime)))
	}
	if cg != nil && l.MemoryBytes > 0 {
		until = earliest(until, w.memAt)
	}
	return until
}

// earliest is the earlier of a and b.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// check sets w.reason when the command went over a limit.
func (w *turnWatch) check(cg *cgroupSet, l Limits, disk func() string) {
	if disk != nil {
		if reason := disk(); reason != "" {
			w.reason = reason
			return
		}
	}
	if cg == nil {
		return
	}
	// The cgroup also counts the supervisor reading the command's output:
	// a little slack keeps a command at its limit from being cut short.
	if w.cpuDue(l.CPUTime) {
		if used, ok := cg.cpu(); ok && used-w.cpu0 > l.CPUTime+20*time.Millisecond {
			w.reason, w.cpu = fmt.Sprintf("used more than %v of CPU time", l.CPUTime), true
			return
		}
	}
	// The kernel only acts at the session's limit, which has room for the
	// supervisor; near it, without swap, it may thrash for seconds before
	// killing anything. The command is stopped at its own limit instead.
	if now := time.Now(); l.MemoryBytes > 0 && !now.Add(watchdogPoll).Before(w.memAt) {
		over, headroom := cg.memoryHeadroom(w.mem0, l.MemoryBytes)
		if over {
			w.reason, w.memory = fmt.Sprintf("used more than %d bytes of memory", l.MemoryBytes), true
			return
		}
		w.memAt = now.Add(memoryPoll(headroom))
	}
}

// apply records on r why the command was killed.
func (w *turnWatch) apply(r *Result) {
	if w.reason == "" {
		return
	}
	r.CPUExceeded = r.CPUExceeded || w.cpu
	r.MemoryExceeded = r.MemoryExceeded || w.memory
	r.Stderr = append(r.Stderr, "\nsandbox: killed: "+w.reason+"\n"...)
}

// killCommand kills every process of the session's cgroup but bubblewrap
// and the supervisor; the supervisor then reports the command as killed.
func (s *Session) killCommand() {
	bwrap := s.cmd.Process.Pid
	keep := map[int]bool{bwrap: true}
	for _, pid := range childrenOf(bwrap) {
		keep[pid] = true
	}
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		n := 0
		for _, pid := range s.cg.pids() {
			if !keep[pid] {
				_ = unix.Kill(pid, unix.SIGKILL)
				n++
			}
		}
		if n == 0 {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// childrenOf lists the children of pid's main thread.
func childrenOf(pid int) []int {
	return readPids(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
}
