//go:build linux

package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// supervisorBoost is how much higher than the worker's the scheduling
// priority of a session's bubblewrap and supervisor is (in nice steps).
// The supervisor wakes a few times per command (to read it, to release the
// started command, to see it end) and uses little CPU each time; on a
// busy machine each wake-up otherwise waits its turn behind every other
// runnable process, which adds milliseconds to every bot turn. Each command
// is put back at the worker's priority before its first instruction.
const supervisorBoost = 10

// ownNice is the worker's nice value, at which session commands run.
func ownNice() (int, error) {
	// The system call returns 20 - nice, so that it is never negative.
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return 0, fmt.Errorf("read the worker's priority: %w", err)
	}
	return 20 - raw, nil
}

// boost raises the priority of pid (bubblewrap, stopped before its first
// instruction) above nice by supervisorBoost. It needs CAP_SYS_NICE (root,
// the platform's worker); without it the session runs at the worker's
// priority, as it would otherwise.
func boost(pid, nice int) {
	_ = unix.Setpriority(unix.PRIO_PROCESS, pid, max(nice-supervisorBoost, -20))
}

// setNice puts pid, a started command stopped before its first
// instruction, at nice: the supervisor's higher priority is not the bot's.
// Raising a nice value needs no privilege.
func setNice(pid, nice int) error {
	if err := unix.Setpriority(unix.PRIO_PROCESS, pid, nice); err != nil {
		return fmt.Errorf("set the priority of pid %d: %w", pid, err)
	}
	return nil
}
