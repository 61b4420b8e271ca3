package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/command"
	"github.com/broadside/broadside/internal/sandbox"
)

// fixedRunner returns one result for every command.
type fixedRunner struct{ res sandbox.Result }

func (f fixedRunner) Run(context.Context, sandbox.Cmd) (sandbox.Result, error) { return f.res, nil }
func (f fixedRunner) Start(context.Context, sandbox.Cmd) (sandbox.Process, error) {
	return nil, errors.New("not used")
}

// TestOverloadGuard: only a time-out starved of CPU on a contended machine
// is the platform's; the bot's own time-outs still count.
func TestOverloadGuard(t *testing.T) {
	const wall = time.Second
	tests := []struct {
		name     string
		res      sandbox.Result
		stall    time.Duration // CPU stall during the command
		psi      bool
		platform bool
	}{
		{"starved on a busy machine", sandbox.Result{TimedOut: true, Wall: wall, CPU: 100 * time.Millisecond}, 800 * time.Millisecond, true, true},
		{"sleeping on a quiet machine", sandbox.Result{TimedOut: true, Wall: wall, CPU: 10 * time.Millisecond}, 50 * time.Millisecond, true, false},
		{"computing while the machine is busy", sandbox.Result{TimedOut: true, Wall: wall, CPU: 1900 * time.Millisecond}, 900 * time.Millisecond, true, false},
		{"answered in time", sandbox.Result{Wall: 200 * time.Millisecond}, 200 * time.Millisecond, true, false},
		{"no pressure measured", sandbox.Result{TimedOut: true, Wall: wall}, wall, false, false},
		// A fork bomb's processes crowd the CPUs themselves: the machine's
		// pressure is theirs.
		{"starved at its process limit, only the machine's pressure measured",
			sandbox.Result{TimedOut: true, Wall: wall, CPU: 100 * time.Millisecond, ProcessLimitHit: true}, 900 * time.Millisecond, true, false},
		// Where the sandbox measured the bot's own processes' wait (cgroup
		// v2), the machine's does not matter.
		{"sleeping on a busy machine, own wait measured",
			sandbox.Result{TimedOut: true, Wall: wall, CPU: 10 * time.Millisecond, Stall: 20 * time.Millisecond, StallKnown: true},
			900 * time.Millisecond, true, false},
		{"a third of its time waiting, own wait measured",
			sandbox.Result{TimedOut: true, Wall: wall, CPU: 300 * time.Millisecond, Stall: 330 * time.Millisecond, StallKnown: true},
			50 * time.Millisecond, true, true},
		{"starved, own wait measured",
			sandbox.Result{TimedOut: true, Wall: wall, CPU: 100 * time.Millisecond, Stall: 700 * time.Millisecond, StallKnown: true},
			50 * time.Millisecond, true, true},
		{"starved, own wait measured, no machine-wide PSI",
			sandbox.Result{TimedOut: true, Wall: wall, CPU: 100 * time.Millisecond, Stall: 700 * time.Millisecond, StallKnown: true},
			0, false, true},
		{"starved at its process limit, own wait measured",
			sandbox.Result{TimedOut: true, Wall: wall, CPU: 100 * time.Millisecond, Stall: 700 * time.Millisecond, StallKnown: true, ProcessLimitHit: true},
			900 * time.Millisecond, true, true},
		{"computing, own wait measured",
			sandbox.Result{TimedOut: true, Wall: wall, CPU: 900 * time.Millisecond, Stall: 900 * time.Millisecond, StallKnown: true},
			900 * time.Millisecond, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var clock time.Duration
			g := overloadGuard{Runner: fixedRunner{tc.res}, stall: func() (time.Duration, bool) {
				now := clock
				clock += tc.stall // the second reading is after the command
				return now, tc.psi
			}}
			res, err := g.Run(context.Background(), sandbox.Cmd{Args: []string{"bot"}})
			if got := errors.Is(err, command.ErrPlatform); got != tc.platform {
				t.Fatalf("platform fault %v (%v), want %v", got, err, tc.platform)
			}
			if res.TimedOut != tc.res.TimedOut {
				t.Fatal("result changed")
			}
		})
	}
}
