//go:build linux

package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultRuntimePaths are the language runtimes of the platform machine that
// live outside /usr (which is always visible). Rust's are rustup's
// toolchains, where botexec resolves cargo and rustc.
func DefaultRuntimePaths() []string {
	rustup := os.Getenv("RUSTUP_HOME")
	if rustup == "" {
		rustup = "/root/.rustup"
	}
	return []string{"/usr/local/go", "/root/.pyenv/versions", filepath.Join(rustup, "toolchains")}
}

// sandboxPath is PATH inside the sandbox.
const sandboxPath = "/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// etcFiles are the files of /etc a program may need: the dynamic linker's
// cache, the alternatives symlinks (java, javac), the JVM's configuration,
// user names. Nothing secret (no shadow, no credentials).
var etcFiles = []string{
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
	"/etc/java-17-openjdk", "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group",
	"/etc/mime.types", "/etc/os-release", "/etc/debian_version",
	// Mono's configuration: without its dllmap, System.Native is not found.
	"/etc/mono",
	// Maven's: Debian's /usr/share/maven/conf and bin/m2.conf link here,
	// and mvn does not start without m2.conf.
	"/etc/maven",
}

// etcNetworkFiles are added for commands allowed on the network.
var etcNetworkFiles = []string{
	"/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/ssl", "/etc/ca-certificates",
	"/etc/ca-certificates.conf", "/etc/pki",
}

// Bwrap runs each command in a fresh bubblewrap sandbox: its own user, PID,
// IPC, UTS, cgroup and (unless Cmd.Network) network namespaces, a read-only
// view of the system and runtimes, the command's mounts, a private /tmp, and
// cgroup v1 limits on memory, processes and CPU where the machine allows,
// rlimits otherwise.
type Bwrap struct {
	cfg      BwrapConfig
	bwrap    string
	cgroups  cgroupParents // nil: rlimits only
	readOnly []string
	log      *slog.Logger
	seq      atomic.Uint64
	// tag tells this runner's cgroups from those of the process's other
	// runners (a worker has one for matches and one for builds), whose
	// sequences count from 1 too.
	tag     string
	seccomp []byte // nil: no filter on this architecture
	// runtimes finds the interpreters outside the folders always shown.
	runtimes *hostRuntimes
}

// cgroupName names the next command's cgroup: the pid first, which
// removeStale reads to find the cgroups of dead workers.
func (b *Bwrap) cgroupName() string {
	return fmt.Sprintf("broadside-%d-%s-%d", os.Getpid(), b.tag, b.seq.Add(1))
}

func randomTag() string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return hex.EncodeToString(r[:])
}

// NewBwrap checks that bubblewrap works here and returns the runner. It
// fails when bwrap is missing or cannot create its namespaces; missing
// cgroups only degrade the limits (see Probe).
func NewBwrap(cfg BwrapConfig) (*Bwrap, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	path := cfg.BwrapPath
	if path == "" {
		path = "bwrap"
	}
	bin, err := exec.LookPath(path)
	if err != nil {
		return nil, fmt.Errorf("sandbox: bubblewrap not found: %w", err)
	}
	ro := cfg.ReadOnly
	if ro == nil {
		ro = DefaultRuntimePaths()
	}
	ro = append(append([]string{}, ro...), programsRoot())
	b := &Bwrap{cfg: cfg, bwrap: bin, log: log, seccomp: setuidFilter(), tag: randomTag()}
	for _, p := range ro {
		if _, err := os.Stat(p); err == nil && !strings.HasPrefix(p+"/", "/usr/") {
			b.readOnly = append(b.readOnly, filepath.Clean(p))
		}
	}
	b.runtimes = newHostRuntimes(b.alwaysVisible)
	if !cfg.NoCgroups {
		cg, _, err := findCgroups()
		if err != nil {
			log.Warn("sandbox without cgroups: memory and process limits fall back to rlimits", "err", err)
		} else {
			b.cgroups = cg
			cg.removeStale()
		}
	}
	removeStaleStages()
	r, err := b.Run(context.Background(), Cmd{Args: []string{"/bin/true"}, Limits: Limits{WallTime: checkWallTime}})
	if err != nil {
		return nil, fmt.Errorf("sandbox: bubblewrap does not work here: %w", err)
	}
	if r.ExitCode != 0 {
		return nil, fmt.Errorf("sandbox: bubblewrap does not work here: exit %d: %s", r.ExitCode, strings.TrimSpace(string(r.Stderr)))
	}
	return b, nil
}

// Run runs cmd to completion in a fresh sandbox.
func (b *Bwrap) Run(ctx context.Context, c Cmd) (Result, error) {
	p, err := b.start(ctx, c, nil)
	if err != nil {
		return Result{}, err
	}
	<-p.done
	return p.result, p.processErr
}

// Start starts cmd in a fresh sandbox with its standard input and output
// connected to the returned Process. Cmd.Stdin is not used.
func (b *Bwrap) Start(ctx context.Context, c Cmd) (Process, error) {
	return startProcess(ctx, c, b.start)
}

// args builds the bubblewrap command line for c.
func (b *Bwrap) args(c Cmd, limits Limits) ([]string, error) {
	a := []string{
		"--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--as-pid-1",
		"--cap-drop", "ALL", "--uid", "1000", "--gid", "1000", "--hostname", "sandbox",
		"--ro-bind", "/usr", "/usr",
	}
	for _, top := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		fi, err := os.Lstat(top)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(top)
			if err == nil {
				a = append(a, "--symlink", target, top)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", top, top)
		}
	}
	etc := etcFiles
	if c.Network {
		etc = append(append([]string{}, etcFiles...), etcNetworkFiles...)
	}
	for _, f := range append(etc, interpreterEtcFiles()...) {
		if _, err := os.Stat(f); err == nil {
			a = append(a, "--ro-bind", f, f)
		}
	}
	tmp := b.cfg.TmpBytes
	if tmp <= 0 {
		tmp = 64 << 20
	}
	// /proc read-only: the command's uid maps to the worker's, root on
	// the platform, and root owns /proc/sys, whose files (core_pattern,
	// modprobe) would otherwise take its writes. bubblewrap covers
	// /proc/sys itself only where it finds the folder writable, which it
	// is not (mode 0555) while its files are.
	a = append(a, "--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev", "--size", fmt.Sprint(tmp), "--tmpfs", "/tmp")
	for _, p := range b.readOnly {
		a = append(a, "--ro-bind", p, p)
	}
	// A folder is mounted before the mounts inside it, which would
	// otherwise be hidden under it.
	mounts := append([]Mount{}, c.Mounts...)
	sort.SliceStable(mounts, func(i, j int) bool { return depth(mounts[i]) < depth(mounts[j]) })
	for _, m := range mounts {
		if m.Source == "" || !filepath.IsAbs(m.Source) {
			return nil, fmt.Errorf("sandbox: mount source %q is not an absolute path", m.Source)
		}
		target := m.Target
		if target == "" {
			target = m.Source
		}
		if !filepath.IsAbs(target) {
			return nil, fmt.Errorf("sandbox: mount target %q is not an absolute path", target)
		}
		op := "--ro-bind"
		switch {
		case m.Writable:
			op = "--bind"
		case m.Optional:
			op = "--ro-bind-try"
		}
		if _, err := os.Stat(m.Source); err != nil && op != "--ro-bind-try" {
			return nil, fmt.Errorf("sandbox: mount: %w", err)
		}
		a = append(a, op, m.Source, target)
	}
	// The root itself is a tmpfs made by bwrap; read-only, it cannot be
	// used to fill memory or plant files.
	a = append(a, "--remount-ro", "/")
	if c.Dir != "" {
		a = append(a, "--chdir", c.Dir)
	} else {
		a = append(a, "--chdir", "/tmp")
	}
	a = append(a, "--")
	return append(a, c.Args...), nil
}

// start starts cmd and its watcher in a fresh sandbox.
func (b *Bwrap) start(ctx context.Context, c Cmd, pipes *stdPipes) (_ *proc, err error) {
	if len(c.Args) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	// Whatever fails before the start releases what was made for it.
	var egress *egressProxy
	var cg *cgroupSet
	defer func() {
		if err == nil {
			return
		}
		pipes.closeAll()
		if cg != nil {
			cg.remove()
		}
		if egress != nil {
			egress.close()
		}
	}()
	limits := WithDefaults(c.Limits, b.cfg.TurnDefaults)
	if c, err = b.checked(c); err != nil {
		return nil, err
	}
	env := c.Env
	if c.Network {
		if c, egress, err = b.withEgress(c); err != nil {
			return nil, err
		}
		env = append(append([]string{supervisorEnv + "=relay"}, egressEnv()...), c.Env...)
	}
	cmd, filter, err := b.command(c, env, limits)
	if err != nil {
		return nil, err
	}
	if filter != nil {
		defer filter.Close()
	}
	p := &proc{cmd: cmd, limits: limits, stderr: newCapBuffer(limits.OutputBytes)}
	pipes.attach(cmd, c, p)
	cmd.Stderr = p.stderr
	cmd.WaitDelay = pipeGrace
	var rl []rlimit
	var setup func(int) error
	if cg, rl, setup, err = b.confine(limits); err != nil {
		return nil, err
	}
	// Read before the start: whatever the command writes is stamped later.
	since := fileClock()
	if err := startLimited(cmd, rl, setup); err != nil {
		return nil, fmt.Errorf("sandbox: start %s: %w", c.Args[0], err)
	}
	pipes.closeChildEnds()
	p.start = time.Now()
	b.watchProc(ctx, p, c.Mounts, since, cg, egress)
	return p, nil
}

// command is bubblewrap's command for c, with the seccomp filter's pipe
// (nil without a filter) that the caller closes once it started.
func (b *Bwrap) command(c Cmd, env []string, limits Limits) (*exec.Cmd, *os.File, error) {
	args, err := b.args(c, limits)
	if err != nil {
		return nil, nil, err
	}
	var filter *os.File
	if b.seccomp != nil {
		if filter, err = b.seccompPipe(); err != nil {
			return nil, nil, fmt.Errorf("sandbox: %w", err)
		}
		args = append([]string{"--seccomp", "3"}, args...)
	}
	cmd := exec.Command(b.bwrap, args...)
	if filter != nil {
		cmd.ExtraFiles = []*os.File{filter}
	}
	cmd.Env = minimalEnv(searchPath(c, sandboxPath), "/tmp", env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, filter, nil
}

// seccompPipe returns the read end of a pipe holding the seccomp program,
// for bubblewrap's --seccomp 3.
func (b *Bwrap) seccompPipe() (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("seccomp pipe: %w", err)
	}
	// The program is a few hundred bytes, far below a pipe's buffer.
	_, err = w.Write(b.seccomp)
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("write seccomp program: %w", err)
	}
	return r, nil
}

// confine returns the command's cgroups (nil without cgroups), its
// rlimits and what places it in the cgroups before it runs.
func (b *Bwrap) confine(limits Limits) (*cgroupSet, []rlimit, func(int) error, error) {
	if b.cgroups == nil {
		rl := rlimitsFor(limits)
		if limits.Processes > 0 {
			// Without the pids cgroup, RLIMIT_NPROC is the fallback. It
			// counts the processes of the host user, so it only bounds
			// anything when the worker does not run as root.
			rl = append(rl, rlimit{unix.RLIMIT_NPROC, uint64(limits.Processes)})
		}
		return nil, rl, nil, nil
	}
	hard := limits
	if hard.MemoryBytes > 0 {
		hard.MemoryBytes += memoryHeadroom
	}
	cg, err := b.cgroups.newCgroupSet(b.cgroupName(), hard)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	// The watcher ends the command at its CPU limit by the cgroup's count.
	// RLIMIT_CPU is only a backstop above it: the kernel checks it against
	// a clock sampled at scheduler ticks, which in a virtual machine can run
	// more than a second ahead of the cgroup's, and the command, PID 1 of
	// its namespace, ignores SIGXCPU, so the kernel's SIGKILL would end it
	// short of its limit with no reason recorded.
	backstop := limits
	backstop.CPUTime = cpuBackstop(limits.CPUTime)
	// The memory cgroup bounds the whole tree; RLIMIT_DATA would only
	// bound each process and could refuse what the cgroup allows.
	return cg, withoutResource(rlimitsFor(backstop), unix.RLIMIT_DATA), cg.add, nil
}

// cpuBackstop is the RLIMIT_CPU of a command whose CPU time its cgroup
// measures: a quarter and a second above its limit (0 stays 0, no limit).
func cpuBackstop(limit time.Duration) time.Duration {
	if limit <= 0 {
		return 0
	}
	return limit + limit/4 + time.Second
}

// watchProc hands the started command to its watcher: how to kill and
// measure its tree, what to poll, what to release at the end.
func (b *Bwrap) watchProc(ctx context.Context, p *proc, mounts []Mount, since unix.Timespec, cg *cgroupSet, egress *egressProxy) {
	pid := p.cmd.Process.Pid
	var memKilled atomic.Bool
	p.killTree = func() {
		killGroup(pid)
		if cg != nil {
			cg.kill()
		}
	}
	if cg != nil {
		p.cpu = cg.cpu
		p.stall = cg.stall
		p.processLimitHit = func() bool { return cg.forkFailures() > 0 }
		p.memoryExceeded = func() bool { return cg.memoryExceeded() || memKilled.Load() }
	}
	p.cleanup = func() {
		if cg != nil {
			cg.remove()
		}
		if egress != nil {
			egress.close()
		}
	}
	p.watchdog = b.watchdog(mounts, since, cg, p.limits.MemoryBytes, &memKilled)
	p.translateStatus = true
	p.watch(ctx)
}

// memoryHeadroom is how far above a command's memory limit its cgroup's
// hard limit sits. Without swap, a cgroup at its hard limit can thrash for
// seconds (evicting and re-reading program text) before the kernel kills
// anything; the watchdog stops the command at its own limit first.
const memoryHeadroom = 32 << 20

// watchdog returns what a fresh sandbox's command is polled with: the
// disk bound, and with cgroups the memory limit (anonymous and shared
// memory, not page cache). nil when there is nothing to watch.
func (b *Bwrap) watchdog(mounts []Mount, since unix.Timespec, cg *cgroupSet, memLimit int64, memKilled *atomic.Bool) func() string {
	disk := b.diskWatch(mounts, changedFrom(since), -1)
	if cg == nil || memLimit <= 0 {
		return disk
	}
	return func() string {
		if disk != nil {
			if reason := disk(); reason != "" {
				return reason
			}
		}
		if cg.memoryOver(0, memLimit) {
			memKilled.Store(true)
			return fmt.Sprintf("used more than %d bytes of memory", memLimit)
		}
		return ""
	}
}

// withEgress wraps c for a sandbox with its own network namespace whose way
// out is the egress proxy: the relay runs as PID 1 and starts c.
func (b *Bwrap) withEgress(c Cmd) (Cmd, *egressProxy, error) {
	exe, err := supervisorBinary()
	if err != nil {
		return c, nil, err
	}
	e, err := startEgress(b.log)
	if err != nil {
		return c, nil, fmt.Errorf("sandbox: %w", err)
	}
	c.Mounts = append(append([]Mount{}, c.Mounts...),
		Mount{Source: exe, Target: supervisorPath}, Mount{Source: e.socket, Target: egressSocket, Writable: true})
	c.Args = append([]string{supervisorPath}, c.Args...)
	return c, e, nil
}

// depth is the number of components of a mount's path in the sandbox.
func depth(m Mount) int {
	t := m.Target
	if t == "" {
		t = m.Source
	}
	return strings.Count(filepath.Clean(t), "/")
}

func withoutResource(rl []rlimit, res int) []rlimit {
	out := rl[:0:0]
	for _, r := range rl {
		if r.resource != res {
			out = append(out, r)
		}
	}
	return out
}
