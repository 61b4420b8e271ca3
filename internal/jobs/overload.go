package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/broadside/broadside/internal/command"
	"github.com/broadside/broadside/internal/sandbox"
)

// A bot's time-out counts against the bot, unless the worker's own
// measurements show the machine was too busy to give the bot its time.
// The measurement is the kernel's CPU pressure: the time during which
// tasks ready to run waited for a CPU. Where the sandbox measures it for the
// command's own cgroup (Result.Stall: all of the bot's runnable processes
// waiting, none running), a bot that sleeps past its time, or whose
// processes only wait for one another, is at fault however busy the
// machine; a wait of a quarter of its time for a CPU it was ready to use is
// a machine too busy to judge it. Elsewhere it is the machine's
// (/proc/pressure/cpu, "some"), which counts every task's wait: then half
// the time, and a bot that slept through a busy machine is given the
// benefit of the doubt. A command killed at its wall-time limit that waited
// that long while it got little CPU itself was starved; the match stops
// with a platform error (which wraps command.ErrPlatform, as a sandbox that
// refused does) and is played again later. Where only the machine's
// pressure is measured, a command that filled its process limit (a fork
// bomb) is at fault: its own processes crowd the CPUs, and the machine's
// pressure they cause is no sign of a busy machine. A bot that spends its time
// computing (its CPU time is at least half its wall time, whatever the
// load) or sleeping on a quiet machine is at fault, and its time-out counts
// as the rule set says.
const (
	// overloadStall is the share of a timed-out command's wall time with
	// tasks waiting for a CPU (the machine's) above which the machine is
	// overloaded.
	overloadStall = 0.5
	// overloadOwnStall is the same for the command's own processes' wait.
	overloadOwnStall = 0.25
	// overloadCPU is the share of its wall time a starved command used at
	// most; more, and it was busy computing on its own account.
	overloadCPU = 0.5
)

// overloadError ends a match whose bot timed out on an overloaded machine.
type overloadError struct {
	stall float64
	wall  time.Duration
	// cpu is the CPU time the bot had in its wall time.
	cpu time.Duration
}

func (e *overloadError) Error() string {
	return fmt.Sprintf("a bot ran out of its %s while the machine was overloaded (tasks waited for a CPU %.0f%% of that time; the bot had %s of CPU)",
		e.wall.Round(time.Millisecond), 100*e.stall, e.cpu.Round(time.Millisecond))
}

func (e *overloadError) Unwrap() error { return command.ErrPlatform }

// stallClock reads the machine's cumulative CPU stall; ok is false where
// the kernel does not measure it (no PSI), and then no time-out is taken
// for the machine's unless the sandbox measured the command's own.
type stallClock func() (total time.Duration, ok bool)

// machinePressure returns the stall clock of the machine: the "some"
// total of /proc/pressure/cpu, kept open for the worker's life. Where the
// kernel has no PSI the clock reads nothing.
func machinePressure() stallClock {
	p, _ := sandbox.OpenPressure("/proc/pressure/cpu") // nil on error: reads nothing
	return func() (time.Duration, bool) { return p.Total("some") }
}

// overloadGuard is a seat's runner that tells a time-out on an overloaded
// machine from a bot's own.
type overloadGuard struct {
	sandbox.Runner
	stall stallClock
}

// Run runs c and, when it timed out starved of CPU, returns its result
// with an overloadError.
func (g overloadGuard) Run(ctx context.Context, c sandbox.Cmd) (sandbox.Result, error) {
	before, machineOK := g.stall()
	res, err := g.Runner.Run(ctx, c)
	if err != nil || !res.TimedOut || res.Wall <= 0 {
		return res, err
	}
	stall, limit := res.Stall, overloadOwnStall
	if !res.StallKnown {
		if res.ProcessLimitHit {
			return res, nil
		}
		limit = overloadStall
		after, ok := g.stall()
		if !machineOK || !ok {
			return res, nil
		}
		stall = after - before
	}
	share := float64(stall) / float64(res.Wall)
	if share >= limit && float64(res.CPU) < overloadCPU*float64(res.Wall) {
		return res, &overloadError{stall: min(share, 1), wall: res.Wall, cpu: res.CPU}
	}
	return res, nil
}
