//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// checkWallTime bounds the trivial commands that check a sandbox works: a
// millisecond's work, but a machine under heavy load or under emulation
// may take seconds to start it, which must not read as a broken sandbox.
const checkWallTime = time.Minute

// Probe finds out what this machine can enforce: it runs a real command
// under bubblewrap and compares its namespaces with the worker's, and checks
// that cgroups can be created.
func Probe(ctx context.Context) Capabilities {
	var caps Capabilities
	if _, version, err := findCgroups(); err == nil {
		caps.Cgroups = version
	} else {
		caps.Problems = append(caps.Problems, "no usable cgroups for memory and process limits: "+err.Error())
	}

	if dir, err := makeStage(); err == nil {
		stage{dir: dir}.remove()
		caps.PerCommandMounts = true
	}
	b, err := NewBwrap(BwrapConfig{NoCgroups: caps.Cgroups == ""})
	if err != nil {
		caps.Problems = append(caps.Problems, err.Error())
		return caps
	}
	caps.Bwrap = true
	r, err := b.Run(ctx, Cmd{
		Args:   []string{"/bin/sh", "-c", "echo $$; readlink /proc/self/ns/user /proc/self/ns/net /proc/self/ns/pid"},
		Limits: Limits{WallTime: checkWallTime, OutputBytes: 4096},
	})
	if err != nil || r.ExitCode != 0 {
		caps.Bwrap = false
		why := fmt.Sprint(err)
		if err == nil {
			why = fmt.Sprintf("exit %d, signal %q, timed out %v", r.ExitCode, r.Signal, r.TimedOut)
		}
		caps.Problems = append(caps.Problems, fmt.Sprintf("bubblewrap probe command failed: %s %s", why, strings.TrimSpace(string(r.Stderr))))
		return caps
	}
	lines := strings.Fields(string(r.Stdout))
	if len(lines) != 4 {
		caps.Problems = append(caps.Problems, fmt.Sprintf("bubblewrap probe command printed %q", r.Stdout))
		return caps
	}
	own := func(kind string) string {
		s, _ := os.Readlink("/proc/self/ns/" + kind)
		return s
	}
	caps.UserNamespaces = lines[1] != own("user")
	caps.NetNamespaces = lines[2] != own("net")
	caps.PIDNamespaces = lines[3] != own("pid") && lines[0] == "1"
	for kind, ok := range map[string]bool{"user": caps.UserNamespaces, "network": caps.NetNamespaces, "PID": caps.PIDNamespaces} {
		if !ok {
			caps.Problems = append(caps.Problems, "the sandbox does not get its own "+kind+" namespace")
		}
	}
	return caps
}
