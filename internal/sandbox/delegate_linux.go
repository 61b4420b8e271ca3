//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Delegation says how this process came to own cgroups that the sandbox
// can limit: on cgroup v2 a process needs a cgroup of its own whose parent
// hands it the memory and pids controllers, which a host rarely gives a
// process started from a shell. Delegate arranges it.
type Delegation struct {
	// Version is "v1", "v2", or "" when neither can be used.
	Version string
	// How says, in a few words, which path was taken: the worker logs it.
	How string
	// Dir is the cgroup under which the sandbox creates one cgroup per
	// command (v2 only).
	Dir string

	undo func()
}

// Close gives back what Delegate made: the process returns to the cgroup
// it started in and the cgroup made for it is removed. Commands must have
// ended. Closing a Delegation that made nothing does nothing.
func (d *Delegation) Close() {
	if d != nil && d.undo != nil {
		d.undo()
		d.undo = nil
	}
}

// delegationPrefix names the cgroups Delegate makes for a process (with
// its pid), so a later process can remove those of processes that died.
const delegationPrefix = "broadside-run-"

// workerLeaf names the leaf a process moves itself into, so that its
// former cgroup may hand controllers to its children (cgroup v2 allows no
// process in a cgroup that does).
const workerLeaf = "broadside-worker-"

// Delegate gives this process cgroups the sandbox can use, by the first of
// these that works:
//   - cgroup v1 with writable memory, pids and cpuacct hierarchies;
//   - a cgroup v2 of its own that already delegates memory and pids (a
//     systemd unit with Delegate=yes, a container with a writable cgroup
//     namespace of its own, or an earlier call);
//   - as root, a new cgroup under the nearest ancestor that can give memory
//     and pids, which the process moves into (what runc's cgroupfs driver
//     does);
//   - as another user under systemd, a transient scope with Delegate=yes
//     from the user's service manager (what runc's systemd driver does).
//
// Otherwise it returns an error that says what to arrange. It may be
// called more than once; later calls find the cgroup the first one made.
func Delegate(ctx context.Context) (*Delegation, error) {
	v1, err1 := findCgroupV1()
	if err1 == nil {
		err1 = v1.checkWritable()
	}
	if err1 == nil {
		return &Delegation{Version: "v1", How: "the cgroup v1 hierarchies of the process"}, nil
	}
	d, err := delegateV2(ctx)
	if err != nil {
		return nil, fmt.Errorf("no usable cgroups: cgroup v1: %v; cgroup v2: %w", err1, err)
	}
	if err := (cgroupParents{unified: d.Dir}).checkWritable(); err != nil {
		d.Close()
		return nil, fmt.Errorf("no usable cgroups: cgroup v2: %w", err)
	}
	return d, nil
}

// delegateV2 finds or makes a cgroup v2 of the process's own that hands
// memory and pids to its children.
func delegateV2(ctx context.Context) (*Delegation, error) {
	own, mount, err := ownCgroupV2()
	if err != nil {
		return nil, err
	}
	if dir, ok := alreadyDelegated(own); ok {
		return &Delegation{Version: "v2", How: "the cgroup v2 made for this process at its start", Dir: dir}, nil
	}
	if cp, err := findCgroupV2(); err == nil {
		return &Delegation{Version: "v2", How: "its own cgroup v2, delegated by the host", Dir: cp[unified]}, nil
	}
	if os.Geteuid() == 0 {
		return delegateAsRoot(own, mount)
	}
	d, err := delegateBySystemd(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s is not a cgroup of this process's own that gives memory and pids, "+
			"and no systemd user scope could be made (%v); run as root, or start it under your service manager with "+
			"'systemd-run --user --scope -p Delegate=yes <command>', or give it a cgroup of its own with Delegate=yes "+
			"(a systemd unit) or a writable cgroup namespace (a container); see docs/sandbox.md", own, err)
	}
	return d, nil
}

// ownCgroupV2 returns the process's cgroup v2 directory and the mount
// point of the hierarchy.
func ownCgroupV2() (own, mount string, err error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "", fmt.Errorf("read /proc/self/cgroup: %w", err)
	}
	var rel string
	found := false
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
		}
	}
	if !found {
		return "", "", errors.New("no cgroup v2 hierarchy")
	}
	mount = cgroupRoot
	if _, err := os.Stat(filepath.Join(mount, "cgroup.controllers")); err != nil {
		mount = filepath.Join(cgroupRoot, "unified")
		if _, err := os.Stat(filepath.Join(mount, "cgroup.controllers")); err != nil {
			return "", "", errors.New("cgroup v2 hierarchy not mounted at /sys/fs/cgroup or /sys/fs/cgroup/unified")
		}
	}
	return filepath.Join(mount, rel), mount, nil
}

// alreadyDelegated reports whether own is the leaf an earlier Delegate made
// in a cgroup of the process's own, and returns that cgroup.
func alreadyDelegated(own string) (string, bool) {
	if filepath.Base(own) != workerLeaf+strconv.Itoa(os.Getpid()) {
		return "", false
	}
	parent := filepath.Dir(own)
	if !strings.HasPrefix(filepath.Base(parent), delegationPrefix) {
		return "", false
	}
	return parent, hasControllers(filepath.Join(parent, "cgroup.subtree_control"))
}

// delegateAsRoot makes a cgroup for this process under the nearest
// ancestor of own that can give memory and pids, and moves the process
// into a leaf of it.
func delegateAsRoot(own, mount string) (*Delegation, error) {
	parent, err := delegatingAncestor(own, mount)
	if err != nil {
		return nil, err
	}
	removeStaleDelegations(parent)
	pid := strconv.Itoa(os.Getpid())
	dir := filepath.Join(parent, delegationPrefix+pid)
	leaf := filepath.Join(dir, workerLeaf+pid)
	undo := func() {
		// Back where it started, then the cgroups made for it. Should
		// the way back be refused, they stay until the next process's
		// removeStaleDelegations: killing their processes would kill
		// this one.
		if err := os.WriteFile(filepath.Join(own, "cgroup.procs"), []byte(pid), 0o644); err == nil {
			removeCgroupTree(dir)
		}
	}
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", leaf, err)
	}
	if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(pid), 0o644); err != nil {
		undo()
		return nil, fmt.Errorf("move the process into %s: %w", leaf, err)
	}
	if err := enableControllers(dir); err != nil {
		undo()
		return nil, err
	}
	return &Delegation{Version: "v2", How: "a cgroup v2 made for it under " + parent, Dir: dir, undo: undo}, nil
}

// delegatingAncestor returns the nearest of own and its ancestors (up to
// the mount point, which is the root of a container's cgroup namespace)
// under which a new cgroup gets memory and pids. A cgroup that does not
// hand them to its children yet is made to when it can: it has them
// itself and holds no process (cgroup v2 forbids both, the root aside).
// In a container whose every process sits in the namespace's root, those
// processes are moved into a leaf first, as container runtimes' init
// scripts do; outside a namespace's root no other process is moved.
func delegatingAncestor(own, mount string) (string, error) {
	var tried []string
	for dir := own; ; dir = filepath.Dir(dir) {
		if hasControllers(filepath.Join(dir, "cgroup.subtree_control")) {
			return dir, nil
		}
		if hasControllers(filepath.Join(dir, "cgroup.controllers")) {
			err := enableControllers(dir)
			if err == nil {
				return dir, nil
			}
			if dir == mount && errors.Is(err, unix.EBUSY) && isNamespaceRoot(dir) {
				if err := evacuate(dir); err != nil {
					return "", err
				}
				if err := enableControllers(dir); err == nil {
					return dir, nil
				}
			}
			tried = append(tried, fmt.Sprintf("%s: %v", dir, err))
		} else {
			tried = append(tried, dir+": lacks memory or pids")
		}
		if dir == mount || !strings.HasPrefix(dir, mount+"/") {
			break
		}
	}
	return "", fmt.Errorf("no cgroup from %s up can give memory and pids to a child (%s)", own, strings.Join(tried, "; "))
}

// isNamespaceRoot reports whether dir, the mount point of the hierarchy,
// is the root of a cgroup namespace rather than the machine's root cgroup
// (which has no cgroup.type).
func isNamespaceRoot(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "cgroup.type"))
	return err == nil
}

// evacuate moves every process of dir into a leaf child, so that dir may
// hand controllers to its children.
func evacuate(dir string) error {
	leaf := filepath.Join(dir, "init")
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: %w", leaf, err)
	}
	// Processes started meanwhile land in dir: a few passes catch them.
	for i := 0; i < 10; i++ {
		pids := readPids(filepath.Join(dir, "cgroup.procs"))
		if len(pids) == 0 {
			return nil
		}
		for _, p := range pids {
			err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(strconv.Itoa(p)), 0o644)
			if err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("move process %d into %s: %w", p, leaf, err)
			}
		}
	}
	return fmt.Errorf("processes keep appearing in %s", dir)
}

// hasControllers reports whether a cgroup.controllers or
// cgroup.subtree_control file lists memory and pids.
func hasControllers(file string) bool {
	b, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	list := strings.Fields(string(b))
	return slicesContains(list, "memory") && slicesContains(list, "pids")
}

// enableControllers makes dir hand memory and pids to its children.
func enableControllers(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+memory +pids"), 0o644); err != nil {
		return fmt.Errorf("enable memory and pids for the children of %s: %w", dir, err)
	}
	return nil
}

// removeStaleDelegations removes the cgroups Delegate made under parent
// for processes that have died, killing what still runs in them.
func removeStaleDelegations(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, delegationPrefix+"*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), delegationPrefix))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			continue
		}
		removeCgroupTree(d)
	}
}

// removeCgroupTree kills every process under dir and removes its cgroups,
// children first.
func removeCgroupTree(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeCgroupTree(filepath.Join(dir, e.Name()))
		}
	}
	cs := &cgroupSet{dirs: map[string]string{unified: dir}}
	cs.kill()
	cs.remove()
}
