package sandbox

import "log/slog"

// The platform's two sandboxes. The worker, `battleship --sandbox` and
// every test that claims to run bots as the platform does make theirs
// here, so a setting changed for production is the setting tested.

// NewMatchSandbox returns the sandbox bots play in: every bot command gets
// the turn's limits (TurnDefaults) where its rule set sets none, whatever
// path runs it (a session, a fresh sandbox, a long-lived process). log may
// be nil.
func NewMatchSandbox(log *slog.Logger) (*Bwrap, error) {
	return NewBwrap(BwrapConfig{Logger: log, TurnDefaults: TurnDefaults()})
}

// BuildDiskBytes and BuildTmpBytes are a build's disk and /tmp: builds
// write dependencies (node_modules, jars, crates), so they get more than
// a turn.
const (
	BuildDiskBytes = 2 << 30
	BuildTmpBytes  = 256 << 20
)

// NewBuildSandbox returns the sandbox bots are built in. log may be nil.
func NewBuildSandbox(log *slog.Logger) (*Bwrap, error) {
	return NewBwrap(BwrapConfig{Logger: log, DiskBytes: BuildDiskBytes, TmpBytes: BuildTmpBytes})
}
