//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupRoot is the cgroup v1 hierarchy root of the machine.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupV1Controllers are the v1 controllers a turn is placed in: memory for
// the memory limit, pids for the process limit, cpuacct for the CPU time of
// the whole tree.
var cgroupV1Controllers = []string{"memory", "pids", "cpuacct"}

// cgroupParents are the directories under which the worker creates one
// cgroup per command: for each controller, the worker's own cgroup, so the
// command stays inside whatever the worker itself is limited to.
type cgroupParents map[string]string

// findCgroupV1 returns the worker's cgroup directory for each controller, or
// an error saying why cgroup v1 cannot be used.
func findCgroupV1() (cgroupParents, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("read /proc/self/cgroup: %w", err)
	}
	own := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			own[c] = parts[2]
		}
	}
	parents := cgroupParents{}
	for _, c := range cgroupV1Controllers {
		p, ok := own[c]
		if !ok {
			return nil, fmt.Errorf("cgroup v1 controller %s not mounted", c)
		}
		dir := filepath.Join(cgroupRoot, c, p)
		if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
			// cpu and cpuacct are often co-mounted as cpu,cpuacct.
			return nil, fmt.Errorf("cgroup v1 controller %s: %w", c, err)
		}
		parents[c] = dir
	}
	if dir := hybridPSIDir(own[""]); dir != "" {
		parents[psi] = dir
	}
	return parents, nil
}

// psi is the key, in cgroupParents and cgroupSet.dirs, of a cgroup in the
// cgroup v2 hierarchy that a cgroup v1 ("hybrid") machine also mounts: it
// holds no controller, but the kernel keeps each of its cgroups' CPU
// pressure, so a command's own wait for a CPU can be told from the
// machine's there too.
const psi = "psi"

// hybridPSIDir returns the worker's own cgroup in the hybrid v2 hierarchy
// (path, from the "0::" line of /proc/self/cgroup) where it keeps CPU
// pressure and the worker can create cgroups under it, else "".
func hybridPSIDir(path string) string {
	if path == "" {
		return ""
	}
	dir := filepath.Join(cgroupRoot, "unified", path)
	if _, err := os.Stat(filepath.Join(dir, "cpu.pressure")); err != nil {
		return ""
	}
	if err := (cgroupParents{psi: dir}).checkWritable(); err != nil {
		return ""
	}
	return dir
}

// checkWritable creates and removes a test cgroup under each parent. Its
// name is the process's and a random tag: probes of one process may run
// at once (a worker's sandboxes, tests side by side), and one must not
// remove another's cgroup.
func (cp cgroupParents) checkWritable() error {
	name := fmt.Sprintf("broadside-probe-%d-%s", os.Getpid(), randomTag())
	for c, dir := range cp {
		d := filepath.Join(dir, name)
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("cgroup %s not writable: %w", c, err)
		}
		if err := os.Remove(d); err != nil {
			return fmt.Errorf("remove probe cgroup %s: %w", d, err)
		}
	}
	return nil
}

// cgroupSet is the cgroups of one command.
type cgroupSet struct {
	dirs map[string]string

	// files are the cgroup's files that are read, each opened at its
	// first read and kept open until remove: a turn's watch reads the
	// memory counter every tick and every turn reads the CPU and memory
	// statistics, and reading an open file again is one system call where
	// opening it is several and a path walk.
	mu      sync.Mutex
	files   map[string]*os.File
	removed bool
}

// newCgroupSet creates the command's cgroups with its limits.
func (cp cgroupParents) newCgroupSet(name string, l Limits) (*cgroupSet, error) {
	cs := &cgroupSet{dirs: map[string]string{}}
	for c, parent := range cp {
		d := filepath.Join(parent, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			cs.remove()
			return nil, fmt.Errorf("create cgroup: %w", err)
		}
		cs.dirs[c] = d
	}
	var writes [][2]string
	if d, v2 := cs.dirs[unified]; v2 {
		if l.MemoryBytes > 0 {
			v := strconv.FormatInt(l.MemoryBytes, 10)
			writes = append(writes, [2]string{filepath.Join(d, "memory.max"), v})
			if _, err := os.Stat(filepath.Join(d, "memory.swap.max")); err == nil {
				writes = append(writes, [2]string{filepath.Join(d, "memory.swap.max"), "0"})
			}
		}
		if l.Processes > 0 {
			writes = append(writes, [2]string{filepath.Join(d, "pids.max"), strconv.Itoa(l.Processes)})
		}
	} else if l.MemoryBytes > 0 {
		v := strconv.FormatInt(l.MemoryBytes, 10)
		writes = append(writes, [2]string{filepath.Join(cs.dirs["memory"], "memory.limit_in_bytes"), v})
		// Swap counts too where the kernel accounts it.
		sw := filepath.Join(cs.dirs["memory"], "memory.memsw.limit_in_bytes")
		if _, err := os.Stat(sw); err == nil {
			writes = append(writes, [2]string{sw, v})
		}
	}
	if _, v2 := cs.dirs[unified]; !v2 && l.Processes > 0 {
		writes = append(writes, [2]string{filepath.Join(cs.dirs["pids"], "pids.max"), strconv.Itoa(l.Processes)})
	}
	for _, w := range writes {
		if err := os.WriteFile(w[0], []byte(w[1]), 0o644); err != nil {
			cs.remove()
			return nil, fmt.Errorf("set cgroup limit: %w", err)
		}
	}
	return cs, nil
}

// add moves pid (stopped before it runs anything) into every cgroup.
func (cs *cgroupSet) add(pid int) error {
	for c, d := range cs.dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			return fmt.Errorf("move pid %d to cgroup %s: %w", pid, c, err)
		}
	}
	return nil
}

// cpu is the CPU time used by every process that ever ran in the cgroup.
func (cs *cgroupSet) cpu() (time.Duration, bool) {
	if d, v2 := cs.dirs[unified]; v2 {
		us, ok := cs.readKeyed(filepath.Join(d, "cpu.stat"), "usage_usec")
		return time.Duration(us) * time.Microsecond, ok
	}
	var buf [64]byte
	b, err := cs.read(filepath.Join(cs.dirs["cpuacct"], "cpuacct.usage"), buf[:])
	if err != nil {
		return 0, false
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(ns), true
}

// stall is how long every runnable process of the cgroup waited for a CPU
// while none of them ran (the "full" line of its cpu.pressure, in the
// cgroup v2 hierarchy: the only one, or the hybrid one beside v1's); ok is
// false where there is none or no PSI. "full", not "some": processes of
// the command that wait for one another (a fork bomb) are not starved by
// the machine.
func (cs *cgroupSet) stall() (time.Duration, bool) {
	d, ok := cs.dirs[unified]
	if !ok {
		d, ok = cs.dirs[psi]
	}
	if !ok {
		return 0, false
	}
	// Read at every turn's start and end: kept open like the other
	// counters a turn reads.
	var buf [256]byte
	b, err := cs.read(filepath.Join(d, "cpu.pressure"), buf[:])
	if err != nil {
		return 0, false
	}
	return ParsePressure(b, "full")
}

// forkFailures is how many forks in the cgroup failed because its
// processes were at its process limit (the "max" line of pids.events).
func (cs *cgroupSet) forkFailures() int64 {
	d, v2 := cs.dirs[unified]
	if !v2 {
		d = cs.dirs["pids"]
	}
	if d == "" {
		return 0
	}
	n, _ := cs.readKeyed(filepath.Join(d, "pids.events"), "max")
	return n
}

// memoryExceeded reports whether the kernel killed a process of the cgroup
// for going over its memory limit.
func (cs *cgroupSet) memoryExceeded() bool {
	return cs.oomKills() > 0
}

// oomKills is how many processes of the cgroup the kernel killed for going
// over its memory limit.
func (cs *cgroupSet) oomKills() int64 {
	if d, v2 := cs.dirs[unified]; v2 {
		n, _ := cs.readKeyed(filepath.Join(d, "memory.events"), "oom_kill")
		return n
	}
	n, _ := cs.readKeyed(filepath.Join(cs.dirs["memory"], "memory.oom_control"), "oom_kill")
	return n
}

// memoryUsage is the memory the cgroup's processes hold now: anonymous
// memory and shared memory (its tmpfs /tmp), not the page cache of files
// it read or wrote, which the kernel reclaims at will.
func (cs *cgroupSet) memoryUsage() (int64, bool) {
	stat, anonKey, shmemKey := filepath.Join(cs.dirs[unified], "memory.stat"), "anon", "shmem"
	if _, v2 := cs.dirs[unified]; !v2 {
		stat, anonKey, shmemKey = filepath.Join(cs.dirs["memory"], "memory.stat"), "total_rss", "total_shmem"
	}
	v, ok := cs.readKeys(stat, anonKey, shmemKey)
	return v[0] + v[1], ok
}

// memoryCharged is everything the cgroup is charged for, page cache
// included: a single counter, far cheaper to read than memory.stat (which
// the kernel sums over every CPU). It is never below memoryUsage by more
// than the kernel's per-CPU charge batches (memoryChargeSlack covers them),
// so while it is within a limit less that slack, memoryUsage is too.
func (cs *cgroupSet) memoryCharged() (int64, bool) {
	file := filepath.Join(cs.dirs[unified], "memory.current")
	if _, v2 := cs.dirs[unified]; !v2 {
		file = filepath.Join(cs.dirs["memory"], "memory.usage_in_bytes")
	}
	var buf [32]byte
	b, err := cs.read(file, buf[:])
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}

// read reads the cgroup file at path into buf, from the file kept open
// (see files): the kernel writes a cgroup file afresh at every read from
// offset 0. A file larger than buf is read whole from a fresh open.
func (cs *cgroupSet) read(path string, buf []byte) ([]byte, error) {
	f, err := cs.file(path)
	if err != nil {
		return nil, err
	}
	n, err := preadOnce(f, buf)
	if err != nil {
		return nil, err
	}
	if n == len(buf) {
		return os.ReadFile(path)
	}
	if n == 0 {
		return nil, io.ErrUnexpectedEOF
	}
	return buf[:n], nil
}

// preadOnce reads f from offset 0 in one call. The kernel renders a
// cgroup file whole at each read, so a read that leaves buf room has read
// it all; ReadAt would call again only to be told the end, two calls a
// file on a turn's critical path where one does.
func preadOnce(f *os.File, buf []byte) (int, error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	if err := raw.Read(func(fd uintptr) bool {
		for {
			n, rerr = unix.Pread(int(fd), buf, 0)
			if rerr != unix.EINTR {
				return true
			}
		}
	}); err != nil {
		return 0, err
	}
	return n, rerr
}

// file is the open file at path; an error once the cgroups are removed or
// when it cannot be opened.
func (cs *cgroupSet) file(path string) (*os.File, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if f := cs.files[path]; f != nil {
		return f, nil
	}
	if cs.removed {
		return nil, os.ErrClosed
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if cs.files == nil {
		cs.files = map[string]*os.File{}
	}
	cs.files[path] = f
	return f, nil
}

// memoryChargeSlack bounds how far the cgroup's usage counter may lag its
// exact statistics: the kernel charges in per-CPU batches of 64 pages.
const memoryChargeSlack = 4 << 20

// memoryOver reports whether the cgroup holds more than base+limit bytes
// of memoryUsage, reading memory.stat only when the cheap counter is over.
func (cs *cgroupSet) memoryOver(base, limit int64) bool {
	over, _ := cs.memoryHeadroom(base, limit)
	return over
}

// memoryHeadroom is memoryOver and, when not over, how far below the limit
// the cheap counter is (never more than memoryUsage is): 0 when only
// memory.stat could tell.
func (cs *cgroupSet) memoryHeadroom(base, limit int64) (over bool, headroom int64) {
	if charged, ok := cs.memoryCharged(); ok && charged-base <= limit-memoryChargeSlack {
		return false, limit - memoryChargeSlack - (charged - base)
	}
	used, ok := cs.memoryUsage()
	return ok && used-base > limit, 0
}

// pids lists the processes still in the cgroup.
func (cs *cgroupSet) pids() []int {
	d, v2 := cs.dirs[unified]
	if !v2 {
		d = cs.dirs["pids"]
	}
	return readPids(filepath.Join(d, "cgroup.procs"))
}

// readPids reads a file of process ids separated by white space.
func readPids(path string) []int {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// kill sends SIGKILL to every process in the cgroup. The pids limit keeps a
// fork bomb from outrunning it; it loops until the cgroup is empty or a
// deadline passes.
func (cs *cgroupSet) kill() {
	if d, v2 := cs.dirs[unified]; v2 {
		// Linux 5.14 and later kill the whole cgroup at once.
		_ = os.WriteFile(filepath.Join(d, "cgroup.kill"), []byte("1"), 0o644)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		pids := cs.pids()
		if len(pids) == 0 || time.Now().After(deadline) {
			return
		}
		for _, pid := range pids {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// remove deletes the cgroups; killed processes may take a moment to leave.
func (cs *cgroupSet) remove() {
	cs.mu.Lock()
	for _, f := range cs.files {
		f.Close()
	}
	cs.files, cs.removed = nil, true
	cs.mu.Unlock()
	for _, d := range cs.dirs {
		for i := 0; i < 200; i++ {
			err := os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) || !errors.Is(err, unix.EBUSY) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// removeStale deletes the cgroups left by workers that died mid-command
// (their names carry the worker's pid), killing what still runs in them.
func (cp cgroupParents) removeStale() {
	for _, parent := range cp {
		dirs, _ := filepath.Glob(filepath.Join(parent, "broadside-*-*"))
		for _, d := range dirs {
			parts := strings.Split(filepath.Base(d), "-")
			pid, err := strconv.Atoi(parts[1])
			if err != nil || pid == os.Getpid() {
				continue
			}
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
				continue
			}
			stale := &cgroupSet{dirs: map[string]string{}}
			for c, p := range cp {
				stale.dirs[c] = filepath.Join(p, filepath.Base(d))
			}
			stale.kill()
			stale.remove()
		}
	}
}

// readKeyed reads the number after key in the cgroup's "key value" per
// line file at path.
func (cs *cgroupSet) readKeyed(path, key string) (int64, bool) {
	v, ok := cs.readKeys(path, key)
	return v[0], ok
}

// readKeys reads the numbers after one or two keys in the cgroup's "key
// value" per line file at path, in one read; ok when all were found.
func (cs *cgroupSet) readKeys(path string, keys ...string) ([2]int64, bool) {
	var buf [8 << 10]byte
	b, err := cs.read(path, buf[:])
	if err != nil {
		return [2]int64{}, false
	}
	return parseKeys(b, keys...)
}

// parseKeys reads the numbers after one or two keys in b, "key value"
// per line; ok when all were found.
func parseKeys(b []byte, keys ...string) ([2]int64, bool) {
	var out [2]int64
	found := 0
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		for i, key := range keys {
			if len(line) > len(key) && line[len(key)] == ' ' && string(line[:len(key)]) == key {
				n, err := strconv.ParseInt(string(bytes.TrimSpace(line[len(key)+1:])), 10, 64)
				if err != nil {
					return out, false
				}
				out[i] = n
				found++
			}
		}
	}
	return out, found == len(keys)
}
