// Package sandbox starts untrusted commands (bot turns and bot builds) with
// limits. It is the only package that starts contestants' code. Two runners
// share one interface: Host runs a command directly with rlimits and a
// process group (for contestants' own machines), Bwrap confines it with
// bubblewrap, namespaces and cgroups (for the platform).
package sandbox

import (
	"context"

	"github.com/broadside/broadside/internal/command"
)

// The command types live in package command, so packages that only
// describe commands (the rule sets) need not import the sandbox.
type (
	Limits  = command.Limits
	Mount   = command.Mount
	Cmd     = command.Cmd
	Result  = command.Result
	Process = command.Process
)

// Runner starts commands. Run returns an error only when the command could
// not be started (missing program, sandbox failure); a command that fails,
// crashes or is killed is described by its Result.
type Runner interface {
	Run(ctx context.Context, cmd Cmd) (Result, error)
	Start(ctx context.Context, cmd Cmd) (Process, error)
}
