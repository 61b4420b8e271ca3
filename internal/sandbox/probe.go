package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotEnforced is wrapped by Require when the machine cannot confine
// untrusted code.
var ErrNotEnforced = errors.New("sandbox: this machine cannot confine bots")

// Capabilities is what the machine can enforce, as found by Probe.
type Capabilities struct {
	// Bwrap is set when bubblewrap ran a command in new namespaces.
	Bwrap bool
	// UserNamespaces, NetNamespaces and PIDNamespaces are set when a
	// sandboxed command was seen in its own namespace of that kind.
	UserNamespaces bool
	NetNamespaces  bool
	PIDNamespaces  bool
	// Cgroups is the cgroup version whose memory, pids and CPU accounting
	// controllers the sandbox can use ("v1", "v2"), or "" when none.
	Cgroups string
	// PerCommandMounts is set when sessions can show each command its own
	// folders (Mount.PerCommand), which needs root; without it those
	// commands run in fresh sandboxes, confined alike but slower.
	PerCommandMounts bool
	// Problems says what is missing or failed, one sentence each.
	Problems []string
}

// Enforced reports whether untrusted code can be run with its network and
// processes isolated and its memory and process count bounded by the tree.
// The worker refuses ranked matches otherwise.
func (c Capabilities) Enforced() bool {
	return c.Bwrap && c.NetNamespaces && c.PIDNamespaces && c.Cgroups != ""
}

// String is a one-line summary for logs and the command line.
func (c Capabilities) String() string {
	cg := c.Cgroups
	if cg == "" {
		cg = "none"
	}
	s := fmt.Sprintf("sandbox enforced=%v bwrap=%v userns=%v netns=%v pidns=%v cgroups=%s percommand=%v",
		c.Enforced(), c.Bwrap, c.UserNamespaces, c.NetNamespaces, c.PIDNamespaces, cg, c.PerCommandMounts)
	if len(c.Problems) > 0 {
		s += "; problems: " + strings.Join(c.Problems, "; ")
	}
	return s
}

// Require returns nil when caps say untrusted code is confined with its
// limits enforced, and otherwise an error wrapping ErrNotEnforced that says
// what is missing and how to fix it. The worker calls it before playing a
// ranked match or building a bot, and refuses the job when it fails.
func Require(caps Capabilities) error {
	if caps.Enforced() {
		return nil
	}
	problems := caps.Problems
	if len(problems) == 0 {
		problems = []string{caps.String()}
	}
	return fmt.Errorf("%w: %s (install bubblewrap with scripts/setup.sh and give the worker writable cgroups; see docs/sandbox.md)",
		ErrNotEnforced, strings.Join(problems, "; "))
}
