// Package command describes a command to run under limits and what came
// of it. It holds only data and the Process interface, so the rule sets can
// describe their bots' turns without depending on the sandbox that runs them.
package command

import (
	"errors"
	"io"
	"time"
)

// Limits bound one command. A zero field means no limit of that kind.
type Limits struct {
	// CPUTime is the CPU time of the whole process tree.
	CPUTime time.Duration
	// WallTime is the wall-clock time after which the tree is killed.
	WallTime time.Duration
	// MemoryBytes bounds the memory of the tree.
	MemoryBytes int64
	// Processes bounds the number of processes and threads.
	Processes int
	// FileSizeBytes bounds the size of any file written.
	FileSizeBytes int64
	// OpenFiles bounds the number of open file descriptors.
	OpenFiles int
	// OutputBytes caps how much of stdout and of stderr is kept; the rest is
	// read and discarded.
	OutputBytes int
}

// Mount makes a host path visible to the command, at the same path unless
// Target is set.
type Mount struct {
	Source   string
	Target   string
	Writable bool
	// PerCommand, for a Session's mounts only, shows an empty folder at the
	// mount's path; the mounts of each command under it (a bot's round
	// folder in the replay folder) appear there for that command only, so
	// a bot never sees its opponent's folders. Outside sessions it is
	// ignored.
	PerCommand bool
	// Optional mounts a read-only path only where it still exists when the
	// command starts: an interpreter's folder (a virtualenv) that may be
	// removed while a worker runs. Without it a missing source fails the
	// command.
	Optional bool
}

// Cmd is one command to run.
type Cmd struct {
	// Args is the program followed by its arguments.
	Args []string
	// Dir is the working directory.
	Dir string
	// Env is added to the minimal environment (PATH, HOME, LANG).
	Env []string
	// Path are folders searched before the runner's own PATH; inside a
	// sandbox they must be visible (under ProgramsRoot, /usr or a mount).
	Path []string
	// Mounts are the host paths the command may see besides the read-only
	// system and language runtimes.
	Mounts []Mount
	// Stdin is the command's standard input; nil means empty.
	Stdin io.Reader
	// Network allows network access (package installs during builds only).
	Network bool
	Limits  Limits
}

// Result is what happened to a command that started.
type Result struct {
	ExitCode int
	Stdout   []byte
	Stderr   []byte
	// CPU is the user plus system CPU time of the whole process tree.
	CPU time.Duration
	// Wall is the elapsed time from start to the end of the tree.
	Wall time.Duration
	// TimedOut is set when the wall-time limit killed the command.
	TimedOut bool
	// CPUExceeded is set when the CPU-time limit killed the command.
	CPUExceeded bool
	// MemoryExceeded is set when the memory limit killed the command.
	MemoryExceeded bool
	// Signal names the signal that ended the command, if any.
	Signal string
	// Truncated is set when output beyond Limits.OutputBytes was dropped.
	Truncated bool
	// Stall is how long, while the command ran, its processes were ready
	// to run but none of them got a CPU: the "full" total of its cgroup's
	// cpu.pressure. StallKnown is false where the kernel does not measure
	// it per cgroup (no cgroup v2 hierarchy, no PSI, no cgroups).
	Stall      time.Duration
	StallKnown bool
	// ProcessLimitHit is set when a fork failed while the command ran
	// because its processes were at Limits.Processes (the cgroup's
	// pids.events): its processes crowded one another for the CPUs.
	ProcessLimitHit bool
}

// Process is a started long-lived command whose standard streams the caller
// drives (protocols that keep one process per game).
type Process interface {
	Stdin() io.WriteCloser
	Stdout() io.Reader
	// Wait waits for the command to end and returns what happened. Stdout
	// of the Result is empty: the caller read it.
	Wait() (Result, error)
	// Kill ends the whole process tree.
	Kill() error
}

// ErrPlatform is wrapped by a runner's error when a command could not be
// started because of the machine that runs it (a program the sandbox
// cannot show, a sandbox that broke), not because of the bot: the rule
// sets end the match with that error instead of counting a forfeit.
var ErrPlatform = errors.New("the platform could not start the command")
