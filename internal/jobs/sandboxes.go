package jobs

import (
	"fmt"
	"log/slog"

	"github.com/broadside/broadside/internal/sandbox"
)

// Sandboxes are the bubblewrap sandboxes a worker confines bots in. The
// worker command makes them, once the sandbox is known to be enforceable,
// and so do tests that claim to play as the platform does.
type Sandboxes struct {
	// Match runs bots during matches. Every bot command gets the turn's
	// limits (sandbox.TurnDefaults) where its rule set sets none,
	// whatever path runs it: a session, a fresh sandbox, a long-lived
	// process.
	Match *sandbox.Bwrap
	// Build runs builds, which write dependencies (node_modules, jars):
	// more disk.
	Build *sandbox.Bwrap
}

// NewSandboxes returns the worker's sandboxes; log may be nil.
func NewSandboxes(log *slog.Logger) (Sandboxes, error) {
	match, err := sandbox.NewMatchSandbox(log)
	if err != nil {
		return Sandboxes{}, fmt.Errorf("sandbox: %w", err)
	}
	build, err := sandbox.NewBuildSandbox(log)
	if err != nil {
		return Sandboxes{}, fmt.Errorf("sandbox: %w", err)
	}
	return Sandboxes{Match: match, Build: build}, nil
}
