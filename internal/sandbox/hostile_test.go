//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/testenv"
	"golang.org/x/sys/unix"
)

// hostileLimits are the per-turn limits of the hostile suite: short, so the
// suite stays fast, and the platform's defaults otherwise.
var hostileLimits = Limits{
	WallTime:      2 * time.Second,
	CPUTime:       time.Second,
	MemoryBytes:   256 << 20,
	Processes:     64,
	FileSizeBytes: 16 << 20,
	OpenFiles:     256,
	OutputBytes:   1 << 20,
}

// hostileTurnLimits are hostileLimits with their times stretched on a slow
// machine (testenv.Scaled).
func hostileTurnLimits() Limits {
	l := hostileLimits
	l.WallTime = testenv.Scaled(l.WallTime)
	l.CPUTime = testenv.Scaled(l.CPUTime)
	return l
}

// hostileEnv is the world one hostile bot plays in: its folder, its round
// folder, an opponent folder it must not see, a loopback listener it must
// not reach, and secrets it must not read.
type hostileEnv struct {
	bot, round, opponent string
	markerName           string
	envSecret, oppSecret string
	accepted             *atomic.Int64
}

func newHostileEnv(t *testing.T, name string) *hostileEnv {
	t.Helper()
	root := t.TempDir()
	e := &hostileEnv{
		bot:        filepath.Join(root, "bot"),
		round:      filepath.Join(root, "round-"+name),
		opponent:   filepath.Join(root, "opponent"),
		markerName: fmt.Sprintf("broadside-hostile-%s-%d", name, time.Now().UnixNano()),
		envSecret:  fmt.Sprintf("env-secret-%d", time.Now().UnixNano()),
		oppSecret:  fmt.Sprintf("opponent-ships-%d", time.Now().UnixNano()),
		accepted:   new(atomic.Int64),
	}
	t.Setenv("BROADSIDE_WORKER_SECRET", e.envSecret)
	if err := os.CopyFS(e.bot, os.DirFS(filepath.Join("testdata", "hostile", name))); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{e.round, e.opponent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(e.opponent, "state.json"), e.oppSecret)

	// On every address, so that the host's own addresses are tried too.
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			e.accepted.Add(1)
			c.Close()
		}
	}()
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	for _, d := range []string{e.round, e.bot} {
		writeFile(t, filepath.Join(d, "port.txt"), port)
		writeFile(t, filepath.Join(d, "opponent_path.txt"), e.opponent)
		writeFile(t, filepath.Join(d, "marker_name.txt"), e.markerName)
	}
	t.Cleanup(func() {
		for _, p := range e.hostMarkers() {
			os.Remove(p)
		}
	})
	return e
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hostMarkers are the host paths the write_outside bot aims at.
func (e *hostileEnv) hostMarkers() []string {
	var out []string
	for _, d := range []string{"/tmp", "/work", "/root", "/", "/var/tmp", "/dev/shm", e.opponent} {
		out = append(out, filepath.Join(d, e.markerName))
	}
	return out
}

// turn is the bot's turn command in the Entelect protocol.
func (e *hostileEnv) turn(t *testing.T) Cmd {
	t.Helper()
	var prog []string
	switch {
	case exists(filepath.Join(e.bot, "bot.c")):
		out, err := exec.Command("cc", "-O1", "-pthread", "-I", hostileInclude(t), "-o", filepath.Join(e.bot, "bot"), filepath.Join(e.bot, "bot.c")).CombinedOutput()
		if err != nil {
			t.Fatalf("compile: %v\n%s", err, out)
		}
		prog = []string{filepath.Join(e.bot, "bot")}
	case exists(filepath.Join(e.bot, "bot.sh")):
		prog = []string{"/bin/sh", filepath.Join(e.bot, "bot.sh")}
	case exists(filepath.Join(e.bot, "bot.py")):
		prog = []string{"python3", filepath.Join(e.bot, "bot.py")}
	case exists(filepath.Join(e.bot, "bot.js")):
		prog = []string{"node", filepath.Join(e.bot, "bot.js")}
	case exists(filepath.Join(e.bot, "bot")):
		prog = []string{filepath.Join(e.bot, "bot")}
	default:
		t.Fatalf("no bot program in %s", e.bot)
	}
	return Cmd{
		Args:   append(prog, "A", e.round),
		Dir:    e.bot,
		Mounts: []Mount{{Source: e.bot, Writable: true}, {Source: e.round, Writable: true}},
		Limits: hostileTurnLimits(),
	}
}

// hostileInclude is the folder of common.h, shared by the C bots.
func hostileInclude(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("testdata", "hostile"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// checkContained asserts what must hold after any hostile command.
func (e *hostileEnv) checkContained(t *testing.T, r Result, l Limits, sessionPid int) {
	t.Helper()
	shadow, _ := os.ReadFile("/etc/shadow")
	firstShadow, _, _ := bytes.Cut(shadow, []byte("\n"))
	for _, f := range []string{filepath.Join(e.round, "loot.txt"), filepath.Join(e.bot, "loot.txt")} {
		loot, _ := os.ReadFile(f)
		for _, bad := range [][]byte{[]byte("PWNED"), []byte(e.envSecret), []byte(e.oppSecret), firstShadow} {
			if len(bad) > 0 && bytes.Contains(loot, bad) {
				t.Errorf("%s contains %q:\n%s", f, bad, loot)
			}
		}
	}
	for _, out := range [][]byte{r.Stdout, r.Stderr} {
		for _, bad := range [][]byte{[]byte(e.envSecret), []byte(e.oppSecret), firstShadow} {
			if len(bad) > 0 && bytes.Contains(out, bad) {
				t.Errorf("output contains %q", bad)
			}
		}
	}
	if n := e.accepted.Load(); n != 0 {
		t.Errorf("the host loopback listener accepted %d connections", n)
	}
	for _, p := range e.hostMarkers() {
		if exists(p) {
			t.Errorf("bot wrote %s on the host", p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.opponent, "state.json")); err != nil || string(b) != e.oppSecret {
		t.Errorf("opponent folder changed: %q %v", b, err)
	}
	// The sandbox of a session holds the round folder in its command line
	// until the session is closed; nothing else may.
	if pids := procsWithMarker(t, e.round); len(pids) > 0 && !(len(pids) == 1 && pids[0] == strconv.Itoa(sessionPid)) {
		t.Errorf("processes of the bot left after its turn: %v", pids)
	}
	if limit := l.WallTime + 2*time.Second; r.Wall > limit {
		t.Errorf("turn took %v, beyond the wall limit", r.Wall)
	}
	_ = filepath.WalkDir(e.round, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil && fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
				t.Errorf("setuid file left on the host: %s %v", p, fi.Mode())
			}
			if fi, err := d.Info(); err == nil && fi.Size() > l.FileSizeBytes {
				t.Errorf("file %s of %d bytes beyond the file size limit", p, fi.Size())
			}
		}
		return nil
	})
}

func (e *hostileEnv) commandWritten(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.round, "command.txt"))
	if err != nil || string(b) != "1,0,0" {
		t.Errorf("command.txt = %q, %v; want 1,0,0", b, err)
	}
}

// hostileCases lists every bot of testdata/hostile with what its Result must
// say besides the common containment checks.
var hostileCases = []struct {
	name string
	// tune, when set, changes the limits of this bot's turn.
	tune  func(l *Limits)
	check func(t *testing.T, e *hostileEnv, r Result)
}{
	{name: "well_behaved", check: func(t *testing.T, e *hostileEnv, r Result) {
		e.commandWritten(t)
		if r.ExitCode != 0 || r.TimedOut {
			t.Errorf("canary failed: %+v", r)
		}
	}},
	{name: "fork_bomb", check: func(t *testing.T, e *hostileEnv, r Result) {
		if !r.TimedOut && !r.CPUExceeded {
			t.Errorf("want timed out or CPU exceeded: %+v", r)
		}
		// The worker's overload guard reads it (internal/jobs).
		if !r.ProcessLimitHit {
			t.Errorf("the result does not say the process limit was hit: %+v", r)
		}
	}},
	{name: "net_postgres", check: wantCommand},
	{name: "net_loopback", check: wantCommand},
	{name: "read_opponent", check: wantCommand},
	{name: "env_secrets", check: wantCommand},
	{name: "write_outside", check: wantCommand},
	// Page faults cost about 3 ms per MiB on the test machine: with a
	// smaller limit the cgroup kills the bot long before its CPU limit.
	{name: "memory_hog", tune: func(l *Limits) { l.MemoryBytes = 64 << 20 }, check: func(t *testing.T, e *hostileEnv, r Result) {
		if !r.MemoryExceeded || r.ExitCode == 0 {
			t.Errorf("want MemoryExceeded: %+v", r)
		}
	}},
	{name: "infinite_loop", check: func(t *testing.T, e *hostileEnv, r Result) {
		if !r.CPUExceeded && !r.TimedOut {
			t.Errorf("want CPU exceeded or timed out: %+v", r)
		}
	}},
	{name: "sleep_forever", check: func(t *testing.T, e *hostileEnv, r Result) {
		if !r.TimedOut {
			t.Errorf("want timed out: %+v", r)
		}
	}},
	{name: "orphan", check: wantCommand},
	{name: "stdout_flood", check: func(t *testing.T, e *hostileEnv, r Result) {
		if !r.Truncated || len(r.Stdout) != hostileLimits.OutputBytes {
			t.Errorf("want truncated output of %d bytes, got %d: %+v", hostileLimits.OutputBytes, len(r.Stdout), r.Truncated)
		}
	}},
	{name: "kill_all", check: wantCommand},
	// The bot gets all the time it needs to reach the disk bound: on a slow
	// machine its CPU second would otherwise end it first, proving nothing
	// of the bound. On a busy machine the wall time may still end the turn
	// before the disk watchdog does; either way the folders stay within
	// the bound. Where the folders are on a tmpfs (a /tmp in memory, as on
	// many distributions and in the cgroup v2 guest), what the bot writes
	// is memory too, and the memory limit may end it first.
	{name: "disk_filler", tune: func(l *Limits) {
		l.WallTime, l.CPUTime = testenv.Scaled(time.Minute), testenv.Scaled(time.Minute)
	}, check: func(t *testing.T, e *hostileEnv, r Result) {
		inMemory := onTmpfs(t, e.round) && r.MemoryExceeded
		if r.Signal != "SIGKILL" || !(r.TimedOut || inMemory || bytes.Contains(r.Stderr, []byte("wrote more than"))) {
			t.Errorf("want killed for writing too much: %+v %s", r, r.Stderr)
		}
		// The watchdog polls every 20 ms, and a bot writes to the page cache
		// at several GB/s, so one burst between polls can add a few hundred
		// MB (seen: 110 MB). Unwatched, this bot writes 2 GB.
		if n := folderBytes(t, e.round) + folderBytes(t, e.bot); n > defaultDiskBytes+256<<20 {
			t.Errorf("the bot wrote %d bytes to its folders, beyond the %d bytes bound", n, defaultDiskBytes)
		}
	}},
	{name: "threads", check: wantCommand},
	{name: "open_files", check: wantCommand},
	{name: "exec_shell", check: wantCommand},
	{name: "ptrace_parent", check: wantCommand},
	{name: "sys_devmem", check: wantCommand},
	{name: "mount_escape", check: wantCommand},
	{name: "setuid_root", check: wantCommand},
	{name: "self_rewrite", check: func(t *testing.T, e *hostileEnv, r Result) {
		e.commandWritten(t)
		if !exists(filepath.Join(e.bot, "rewritten.txt")) {
			t.Errorf("a bot may rewrite its own folder, but rewritten.txt is missing: %s", r.Stderr)
		}
	}},
	{name: "read_worker_files", check: wantCommand},
	{name: "signal_init", check: wantCommand},
}

// folderBytes is the size of the files under dir.
func folderBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if fi, err := d.Info(); err == nil && !d.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func wantCommand(t *testing.T, e *hostileEnv, r Result) {
	t.Helper()
	e.commandWritten(t)
}

// requireEnforced confirms the sandbox is active before anything hostile
// runs: Probe must say so and a canary must see no host file.
func requireEnforced(t *testing.T) *Bwrap {
	t.Helper()
	b := newTestBwrap(t)
	r, err := b.Run(context.Background(), Cmd{
		Args:   []string{"/bin/sh", "-c", "test ! -e /work && test ! -e /var/run/postgresql && test $$ = 1 && echo confined"},
		Limits: Limits{WallTime: 5 * time.Second},
	})
	if err != nil || strings.TrimSpace(string(r.Stdout)) != "confined" {
		t.Fatalf("canary: the sandbox does not confine: %v %+v", err, r)
	}
	return b
}

func TestHostileBots(t *testing.T) {
	testHostileBots(t, false)
}

// TestHostileBotsSession plays the same bots in a Session: one sandbox per
// bot, its turns started by the supervisor inside.
func TestHostileBotsSession(t *testing.T) {
	testHostileBots(t, true)
}

func testHostileBots(t *testing.T, session bool) {
	b := requireEnforced(t)
	// A process of the worker's user outside the sandbox, which kill -1
	// must not reach.
	bystander := exec.Command("sleep", "100000")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { bystander.Process.Kill(); bystander.Wait() }()

	for _, tc := range hostileCases {
		t.Run(tc.name, func(t *testing.T) {
			e := newHostileEnv(t, tc.name)
			var runner Runner = b
			turn := e.turn(t)
			if tc.tune != nil {
				tc.tune(&turn.Limits)
			}
			sessionPid := -1
			if session {
				// As in a match: the bot's folder, and its round folders
				// shown one command at a time from a folder that also holds
				// the opponent's.
				s, err := b.NewSession([]Mount{{Source: e.bot, Writable: true},
					{Source: filepath.Dir(e.round), Writable: true, PerCommand: true}}, turn.Limits)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				runner = s
				sessionPid = s.cmd.Process.Pid
			}
			r, err := runner.Run(context.Background(), turn)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			t.Logf("result: exit %d signal %q timed out %v cpu exceeded %v memory exceeded %v truncated %v cpu %v wall %v",
				r.ExitCode, r.Signal, r.TimedOut, r.CPUExceeded, r.MemoryExceeded, r.Truncated, r.CPU, r.Wall)
			e.checkContained(t, r, turn.Limits, sessionPid)
			tc.check(t, e, r)
			if session && tc.name == "signal_init" && runner.(*Session).broken {
				t.Errorf("signals from the bot ended the session's supervisor")
			}
		})
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", bystander.Process.Pid))
	if _, rest, _ := strings.Cut(string(stat), ") "); err != nil || strings.HasPrefix(rest, "Z") {
		t.Errorf("the bystander process outside the sandbox was killed: %q %v", stat, err)
	}
}

// TestHostileBuilds runs builds that reach for the host in their build
// scripts: a Makefile (the compile step, without network) and an npm
// postinstall script (the install step, with the network through the
// egress proxy).
func TestHostileBuilds(t *testing.T) {
	b := requireEnforced(t)
	cases := []struct {
		name    string
		build   []string
		network bool
	}{
		{"make_build", []string{"make"}, false},
		{"npm_postinstall", []string{"npm", "install", "--no-audit", "--no-fund"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newHostileEnv(t, tc.name)
			limits := hostileTurnLimits()
			limits.WallTime = 30 * time.Second
			limits.CPUTime = 30 * time.Second
			limits.MemoryBytes = 1 << 30
			r, err := b.Run(context.Background(), Cmd{
				Args:    tc.build,
				Dir:     e.bot,
				Mounts:  []Mount{{Source: e.bot, Writable: true}},
				Limits:  limits,
				Network: tc.network,
			})
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			t.Logf("build: exit %d\n%s\n%s", r.ExitCode, r.Stdout, r.Stderr)
			if r.ExitCode != 0 {
				t.Fatalf("build failed: %+v", r)
			}
			e.checkContained(t, r, limits, -1)
			for _, leak := range []string{"BROADSIDE_WORKER_SECRET", "/root/.bash_history:"} {
				if bytes.Contains(r.Stdout, []byte(leak)) {
					t.Errorf("build output shows %q", leak)
				}
			}
			turn := e.turn(t)
			tr, err := b.Run(context.Background(), turn)
			if err != nil {
				t.Fatalf("turn: %v", err)
			}
			e.checkContained(t, tr, turn.Limits, -1)
			e.commandWritten(t)
		})
	}
}

// onTmpfs reports whether dir lies on a tmpfs, whose files are memory.
func onTmpfs(t *testing.T, dir string) bool {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatalf("statfs %s: %v", dir, err)
	}
	return st.Type == unix.TMPFS_MAGIC
}
