package jobs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/command"
	"github.com/broadside/broadside/internal/sandbox"
)

// A bot's time-out counts against the bot, unless the worker's own
// measurements show the machine was too busy to give the bot its time.
// The measurement is the kernel's CPU pressure (/proc/pressure/cpu, "some"):
// the time during which at least one runnable task waited for a CPU. A
// command killed at its wall-time limit that spent most of that time with
// tasks waiting for a CPU, while it got little CPU itself, was starved by
// the machine; the match stops with a platform error (which wraps
// command.ErrPlatform, as a sandbox that refused does) and is played again
// later. A bot that spends its time computing (its CPU time is at least
// half its wall time, whatever the load) or sleeping on a quiet machine is
// at fault, and its time-out counts as the rule set says.
const (
	// overloadStall is the share of a timed-out command's wall time with
	// tasks waiting for a CPU above which the machine is overloaded.
	overloadStall = 0.5
	// overloadCPU is the share of its wall time a starved command used at
	// most; more, and it was busy computing on its own account.
	overloadCPU = 0.5
)

// overloadError ends a match whose bot timed out on an overloaded machine.
type overloadError struct {
	stall float64
	wall  time.Duration
}

func (e *overloadError) Error() string {
	return fmt.Sprintf("a bot ran out of its %s while the machine was overloaded (tasks waited for a CPU %.0f%% of that time)",
		e.wall.Round(time.Millisecond), 100*e.stall)
}

func (e *overloadError) Unwrap() error { return command.ErrPlatform }

// stallClock reads the machine's cumulative CPU stall; ok is false where
// the kernel does not measure it (no PSI), and then no time-out is taken
// for the machine's.
type stallClock func() (total time.Duration, ok bool)

// cpuPressure reads the "some" total of /proc/pressure/cpu.
func cpuPressure() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return 0, false
	}
	return parsePressure(b)
}

// parsePressure reads the "some" line's total (microseconds) of a PSI file.
func parsePressure(b []byte) (time.Duration, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != "some" {
			continue
		}
		for _, f := range fields[1:] {
			if v, ok := strings.CutPrefix(f, "total="); ok {
				us, err := strconv.ParseInt(v, 10, 64)
				return time.Duration(us) * time.Microsecond, err == nil
			}
		}
	}
	return 0, false
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
	before, ok := g.stall()
	res, err := g.Runner.Run(ctx, c)
	if err != nil || !ok || !res.TimedOut || res.Wall <= 0 {
		return res, err
	}
	after, ok := g.stall()
	if !ok {
		return res, nil
	}
	share := float64(after-before) / float64(res.Wall)
	if share >= overloadStall && float64(res.CPU) < overloadCPU*float64(res.Wall) {
		return res, &overloadError{stall: min(share, 1), wall: res.Wall}
	}
	return res, nil
}
