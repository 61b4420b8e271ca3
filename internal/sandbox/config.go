package sandbox

import "log/slog"

// HostConfig configures a Host runner.
type HostConfig struct {
	// TurnDefaults fills the zero fields of every command's Limits.
	TurnDefaults Limits
}

// BwrapConfig configures a Bwrap runner.
type BwrapConfig struct {
	// TurnDefaults fills the zero fields of every command's Limits.
	TurnDefaults Limits
	// BwrapPath is the bubblewrap program; empty means "bwrap" on PATH.
	BwrapPath string
	// ReadOnly are host paths made visible read-only at the same path, for
	// language runtimes outside /usr. Nil means DefaultRuntimePaths();
	// paths that do not exist are skipped.
	ReadOnly []string
	// TmpBytes is the size of the command's private /tmp; zero means 64 MiB.
	TmpBytes int64
	// DiskBytes bounds how much a command may grow the file systems of its
	// writable mounts; zero means 256 MiB, negative means no bound.
	DiskBytes int64
	// SessionDiskBytes bounds how much all the commands of one Session (a
	// bot's turns in one match) may write to its writable mounts together;
	// zero means 1 GiB, negative means no bound. Past it, the command
	// writing is killed and the session runs no more commands.
	SessionDiskBytes int64
	// DiskFiles bounds how many files and folders a command may add to its
	// writable mounts; zero means 100,000, negative means no bound. Builds
	// that install many packages may need more.
	DiskFiles int
	// NoCgroups turns cgroups off even where they work (rlimits only).
	NoCgroups bool
	// Logger receives notes about degraded confinement; nil discards them.
	Logger *slog.Logger
}
