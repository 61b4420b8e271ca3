//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// unified is the key of the single cgroup v2 directory in cgroupParents and
// cgroupSet.
const unified = "unified"

// findCgroups returns where the process can create cgroups, delegating
// them first where needed (Delegate). version is "v1" or "v2".
func findCgroups() (cp cgroupParents, version string, err error) {
	d, err := Delegate(context.Background())
	if err != nil {
		return nil, "", err
	}
	if d.Version == "v1" {
		cp, err := findCgroupV1()
		return cp, "v1", err
	}
	return cgroupParents{unified: d.Dir}, "v2", nil
}

// findCgroupV2 returns the worker's own cgroup v2 directory, prepared so
// that child cgroups get the memory and pids controllers. cgroup v2 allows
// no processes in a cgroup that hands controllers to its children, so when
// the worker's cgroup holds only the worker, the worker first moves itself
// into a leaf child (broadside-worker-<pid>); when it holds other processes
// too, v2 is not used (a host gives the worker a cgroup of its own, e.g.
// systemd's Delegate=yes or a container with a writable cgroup namespace).
func findCgroupV2() (cgroupParents, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("read /proc/self/cgroup: %w", err)
	}
	var own string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			own = p
		}
	}
	if own == "" {
		return nil, errors.New("no cgroup v2 hierarchy")
	}
	mount := cgroupRoot
	if _, err := os.Stat(filepath.Join(mount, "cgroup.controllers")); err != nil {
		mount = filepath.Join(cgroupRoot, "unified")
	}
	dir := filepath.Join(mount, own)
	if base := filepath.Base(dir); strings.HasPrefix(base, "broadside-worker-") {
		// Already moved by an earlier call: delegate from the parent.
		dir = filepath.Dir(dir)
	}
	ctrl, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return nil, fmt.Errorf("cgroup v2: %w", err)
	}
	for _, c := range []string{"memory", "pids"} {
		if !slicesContains(strings.Fields(string(ctrl)), c) {
			return nil, fmt.Errorf("cgroup v2 controller %s not available in %s", c, dir)
		}
	}
	sub, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return nil, fmt.Errorf("cgroup v2: %w", err)
	}
	enabled := strings.Fields(string(sub))
	if !slicesContains(enabled, "memory") || !slicesContains(enabled, "pids") {
		if err := leaveCgroup(dir); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+memory +pids"), 0o644); err != nil {
			return nil, fmt.Errorf("cgroup v2: enable memory and pids for child cgroups of %s: %w", dir, err)
		}
	}
	return cgroupParents{unified: dir}, nil
}

// leaveCgroup moves the worker out of dir into a leaf child, when the worker
// is the only process in dir.
func leaveCgroup(dir string) error {
	procs, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return fmt.Errorf("cgroup v2: %w", err)
	}
	self := strconv.Itoa(os.Getpid())
	for _, p := range strings.Fields(string(procs)) {
		if p != self {
			return fmt.Errorf("cgroup v2: %s holds other processes than the worker; give the worker a cgroup of its own", dir)
		}
	}
	if len(procs) == 0 {
		return nil
	}
	leaf := filepath.Join(dir, "broadside-worker-"+self)
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("cgroup v2: %w", err)
	}
	if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(self), 0o644); err != nil {
		return fmt.Errorf("cgroup v2: move the worker to %s: %w", leaf, err)
	}
	return nil
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
