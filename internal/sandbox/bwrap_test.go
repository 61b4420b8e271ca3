//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/testenv"
)

// newTestBwrap returns a Bwrap runner, failing the test when the sandbox is
// not fully enforced on this machine: the platform's tests must not pass by
// running untrusted code bare.
func newTestBwrap(t *testing.T) *Bwrap {
	t.Helper()
	caps := Probe(context.Background())
	testenv.Require(t, "an enforced sandbox", caps.Enforced(), caps.String())
	b, err := NewBwrap(BwrapConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestProbe(t *testing.T) {
	caps := Probe(context.Background())
	t.Log(caps)
	testenv.Require(t, "an enforced sandbox", caps.Enforced(), caps.String())
	if len(caps.Problems) != 0 {
		t.Errorf("problems: %v", caps.Problems)
	}
	if !caps.PerCommandMounts {
		t.Errorf("the platform machine runs the worker as root, so sessions must support per-command mounts: %s", caps)
	}
}

func TestBwrapRun(t *testing.T) {
	t.Setenv("BROADSIDE_TEST_SECRET", "s3cr3t")
	testRun(t, newTestBwrap(t))
}

func TestBwrapStart(t *testing.T) {
	testStart(t, newTestBwrap(t))
}

func TestBwrapStartFailure(t *testing.T) {
	b := newTestBwrap(t)
	dir := t.TempDir()
	for _, c := range []Cmd{
		{},
		{Args: []string{"/nonexistent/program"}},
		{Args: []string{"no-such-program-anywhere"}},
		{Args: []string{"/bin/true"}, Dir: "/work"},
		{Args: []string{"/bin/true"}, Mounts: []Mount{{Source: "relative/path"}}},
		{Args: []string{"/bin/true"}, Mounts: []Mount{{Source: dir + "/missing"}}},
	} {
		if _, err := b.Run(context.Background(), c); err == nil {
			t.Errorf("Run(%+v) = nil error, want one", c)
		}
	}
}

// TestBwrapConfinement checks what a command sees: nothing of the host's
// files, network or environment beyond what was given.
func TestBwrapConfinement(t *testing.T) {
	t.Setenv("BROADSIDE_TEST_SECRET", "s3cr3t")
	b := newTestBwrap(t)
	dir := t.TempDir()
	script := `
for p in /work /home /root/.bash_history /var/run/postgresql /etc/shadow /sys/fs/cgroup; do
	test -e "$p" && echo "visible $p"
done
echo x > /usr/probe 2>/dev/null && echo "wrote /usr"
echo x > /probe 2>/dev/null && echo "wrote /"
echo x > ` + dir + `/ro 2>/dev/null && echo "wrote read-only mount"
# /proc/sys belongs to root, which the command's uid maps to where the
# worker runs as root: /proc must be read-only (on a host whose own /proc/sys
# is writable, a write to kernel.core_pattern would run code as root).
awk '$5 == "/proc" && $6 !~ /(^|,)ro(,|$)/ { print "writable /proc" }' /proc/self/mountinfo
echo 1 > /proc/sys/kernel/sysrq 2>/dev/null && echo "wrote a sysctl"
cat /proc/self/environ | tr '\0' '\n' | grep -c SECRET
test "$$" = 1 || echo "not pid 1"
`
	r, err := b.Run(context.Background(), Cmd{
		Args:   []string{"/bin/sh", "-c", script},
		Mounts: []Mount{{Source: dir}},
		Limits: Limits{WallTime: 5 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(r.Stdout)); got != "0" {
		t.Errorf("the sandbox leaked:\n%s", got)
	}
}

// TestBwrapConcurrent runs turns side by side, as the worker does with
// several matches: each gets its own cgroups and its own result.
func TestBwrapConcurrent(t *testing.T) {
	b := newTestBwrap(t)
	const n = 8
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		go func() {
			r, err := b.Run(context.Background(), Cmd{
				Args:   []string{"/bin/sh", "-c", "echo " + strings.Repeat("x", i+1) + "; exit " + string(rune('0'+i))},
				Limits: Limits{WallTime: 10 * time.Second, MemoryBytes: 64 << 20, Processes: 16},
			})
			switch {
			case err != nil:
				errs <- err.Error()
			case r.ExitCode != i || strings.TrimSpace(string(r.Stdout)) != strings.Repeat("x", i+1):
				errs <- "mixed results"
			default:
				errs <- ""
			}
		}()
	}
	for i := 0; i < n; i++ {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

// TestBwrapRelativePaths runs a command named, placed and mounted by paths
// relative to the worker's working directory, as the local command does.
func TestBwrapRelativePaths(t *testing.T) {
	b := newTestBwrap(t)
	rel := filepath.Join("testdata", "hostile", "well_behaved")
	round := t.TempDir()
	r, err := b.Run(context.Background(), Cmd{
		Args:   []string{"/bin/sh", "./bot.sh", "A", round},
		Dir:    rel,
		Mounts: []Mount{{Source: rel}, {Source: round, Writable: true}},
		Limits: Limits{WallTime: 5 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(round, "command.txt")); string(got) != "1,0,0" || r.ExitCode != 0 {
		t.Errorf("command %q, result %+v %s", got, r, r.Stderr)
	}
}

// TestBwrapToolchainsStart runs each build tool whose installation links
// into /etc: Debian's Maven reads /usr/share/maven/bin/m2.conf, a link to
// /etc/maven/m2.conf, and cannot start without it.
func TestBwrapToolchainsStart(t *testing.T) {
	b := newTestBwrap(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mvn", "-B", "--version"}, "Apache Maven"},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			testenv.RequireProgram(t, tc.args[0])
			res, err := b.Run(context.Background(), Cmd{Args: tc.args, Limits: Limits{WallTime: 2 * time.Minute, MemoryBytes: 1 << 30, Processes: 256}})
			if err != nil {
				t.Fatal(err)
			}
			out := string(res.Stdout) + string(res.Stderr)
			if res.ExitCode != 0 || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, output lacks %q:\n%s", res.ExitCode, tc.want, out)
			}
		})
	}
}

// TestBwrapCPULimitBackstop checks the RLIMIT_CPU a fresh sandbox's command
// gets. Where its cgroup counts its CPU time, the watcher ends it at its
// limit and the rlimit sits above it: the kernel checks the rlimit against
// a tick-sampled clock that can run ahead of the cgroup's, and its SIGKILL
// would end a command (PID 1, deaf to SIGXCPU) short of its limit with no
// reason given. Without cgroups the rlimit is the limit.
func TestBwrapCPULimitBackstop(t *testing.T) {
	b := newTestBwrap(t)
	for _, limit := range []time.Duration{time.Second, 8 * time.Second, 1500 * time.Millisecond} {
		r, err := b.Run(context.Background(), Cmd{
			Args:   []string{"cat", "/proc/self/limits"},
			Limits: Limits{WallTime: testenv.Scaled(10 * time.Second), CPUTime: limit},
		})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("Run: %v %+v", err, r)
		}
		soft, hard := "", ""
		for _, line := range strings.Split(string(r.Stdout), "\n") {
			if f := strings.Fields(strings.TrimPrefix(line, "Max cpu time")); len(f) == 3 && strings.HasPrefix(line, "Max cpu time") {
				soft, hard = f[0], f[1]
			}
		}
		secs := (limit + time.Second - 1) / time.Second
		if b.cgroups != nil {
			secs = (cpuBackstop(limit) + time.Second - 1) / time.Second
			if secs*time.Second < limit+time.Second {
				t.Errorf("backstop %d s for a %v limit: less than a second above it", secs, limit)
			}
		}
		if want := []string{strconv.Itoa(int(secs)), strconv.Itoa(int(secs) + 1)}; soft != want[0] || hard != want[1] {
			t.Errorf("%v limit, cgroups %v: RLIMIT_CPU %s/%s s, want %s/%s\n%s", limit, b.cgroups != nil, soft, hard, want[0], want[1], r.Stdout)
		}
	}
}
