//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// procsWithMarker lists the pids whose command line contains marker.
func procsWithMarker(t *testing.T, marker string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("read /proc: %v", err)
	}
	var pids []string
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if bytes.Contains(b, []byte(marker)) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// uniqueSleep returns a sleep argument unique to this test, so leftover
// processes can be found by their command line.
func uniqueSleep() string {
	return fmt.Sprintf("%d.%06d", 300+os.Getpid()%300, time.Now().Nanosecond()/1000)
}

// runnerCase is one command and what its Result must show; shared by the
// Host and Bwrap tests.
type runnerCase struct {
	name   string
	cmd    func(dir string) Cmd
	check  func(t *testing.T, dir string, r Result)
	marker string // processes with this in their command line must be gone
}

func runnerCases() []runnerCase {
	sh := func(script string, l Limits) func(string) Cmd {
		return func(dir string) Cmd {
			return Cmd{Args: []string{"/bin/sh", "-c", script}, Dir: dir, Mounts: []Mount{{Source: dir, Writable: true}}, Limits: l}
		}
	}
	short := Limits{WallTime: 5 * time.Second, OutputBytes: 1 << 20}
	leftover := uniqueSleep()
	return []runnerCase{
		{
			name: "exit code and output",
			cmd:  sh("echo out; echo err >&2; exit 3", short),
			check: func(t *testing.T, _ string, r Result) {
				if r.ExitCode != 3 || string(r.Stdout) != "out\n" || string(r.Stderr) != "err\n" {
					t.Errorf("got exit %d stdout %q stderr %q", r.ExitCode, r.Stdout, r.Stderr)
				}
				if r.TimedOut || r.Truncated || r.Signal != "" {
					t.Errorf("unexpected flags %+v", r)
				}
			},
		},
		{
			name: "stdin, working dir and minimal environment",
			cmd: func(dir string) Cmd {
				c := sh(`read x; echo "$x $(pwd)"; env`, short)(dir)
				c.Stdin = strings.NewReader("hello\n")
				c.Env = []string{"EXTRA=1"}
				return c
			},
			check: func(t *testing.T, dir string, r Result) {
				out := string(r.Stdout)
				if !strings.HasPrefix(out, "hello "+dir+"\n") {
					t.Errorf("stdout %q does not start with the input and dir", out)
				}
				if strings.Contains(out, "BROADSIDE_TEST_SECRET") || !strings.Contains(out, "EXTRA=1") {
					t.Errorf("environment not minimal or missing Cmd.Env: %q", out)
				}
				for _, v := range []string{"PATH=", "HOME=", "LANG="} {
					if !strings.Contains(out, v) {
						t.Errorf("environment lacks %s: %q", v, out)
					}
				}
			},
		},
		{
			name: "wall time kills the whole group",
			cmd:  sh("sleep "+leftover+" & sleep "+leftover+"; echo never", Limits{WallTime: 300 * time.Millisecond}),
			check: func(t *testing.T, _ string, r Result) {
				if !r.TimedOut || r.Signal != "SIGKILL" || bytes.Contains(r.Stdout, []byte("never")) {
					t.Errorf("want timed out by SIGKILL, got %+v", r)
				}
			},
			marker: leftover,
		},
		{
			name: "output capped and drained",
			cmd:  sh("head -c 5000000 /dev/zero; echo done >&2", Limits{WallTime: 10 * time.Second, OutputBytes: 1000}),
			check: func(t *testing.T, _ string, r Result) {
				if len(r.Stdout) != 1000 || !r.Truncated || r.ExitCode != 0 || string(r.Stderr) != "done\n" {
					t.Errorf("got %d bytes, truncated %v, exit %d, stderr %q", len(r.Stdout), r.Truncated, r.ExitCode, r.Stderr)
				}
			},
		},
		{
			name: "cpu limit",
			cmd:  sh("while :; do :; done", Limits{WallTime: 20 * time.Second, CPUTime: time.Second}),
			check: func(t *testing.T, _ string, r Result) {
				if !r.CPUExceeded || r.TimedOut {
					t.Errorf("want CPUExceeded, got %+v", r)
				}
				if r.CPU < 750*time.Millisecond { // RLIMIT_CPU and rusage are sampled at scheduler ticks
					t.Errorf("CPU %v, want about 1 s", r.CPU)
				}
			},
		},
		{
			name: "file size limit",
			cmd:  sh("head -c 3000000 /dev/zero > big", Limits{WallTime: 5 * time.Second, FileSizeBytes: 1 << 20}),
			check: func(t *testing.T, dir string, r Result) {
				fi, err := os.Stat(filepath.Join(dir, "big"))
				if err != nil || fi.Size() > 1<<20 || r.ExitCode == 0 {
					t.Errorf("file %v err %v, result %+v", fi, err, r)
				}
			},
		},
		{
			name: "memory limit",
			cmd: func(dir string) Cmd {
				return Cmd{Args: []string{"python3", "-c", "x = bytearray(2 << 30)\nprint('allocated')"}, Dir: dir,
					Limits: Limits{WallTime: 10 * time.Second, MemoryBytes: 256 << 20}}
			},
			check: func(t *testing.T, _ string, r Result) {
				if r.ExitCode == 0 || bytes.Contains(r.Stdout, []byte("allocated")) {
					t.Errorf("2 GiB allocation succeeded: %+v", r)
				}
			},
		},
		{
			name: "open files limit",
			cmd:  sh("exec 3</dev/null 4</dev/null 5</dev/null 6</dev/null 7</dev/null 8</dev/null 9</dev/null && echo opened", Limits{WallTime: 5 * time.Second, OpenFiles: 5}),
			check: func(t *testing.T, _ string, r Result) {
				if bytes.Contains(r.Stdout, []byte("opened")) {
					t.Errorf("opened more files than the limit: %+v", r)
				}
			},
		},
	}
}

func TestHostRun(t *testing.T) {
	t.Setenv("BROADSIDE_TEST_SECRET", "s3cr3t")
	testRun(t, NewHost(HostConfig{}))
}

// testRun plays the runnerCases table on runner.
func testRun(t *testing.T, runner Runner) {
	t.Helper()
	for _, tc := range runnerCases() {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r, err := runner.Run(context.Background(), tc.cmd(dir))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			tc.check(t, dir, r)
			if tc.marker != "" {
				if pids := procsWithMarker(t, tc.marker); len(pids) > 0 {
					t.Errorf("processes left after Run: %v", pids)
				}
			}
		})
	}
}

func TestHostRunStartFailure(t *testing.T) {
	h := NewHost(HostConfig{})
	for _, args := range [][]string{nil, {"/nonexistent/program"}, {"no-such-program-anywhere"}} {
		if _, err := h.Run(context.Background(), Cmd{Args: args}); err == nil {
			t.Errorf("Run(%q) = nil error, want one", args)
		}
	}
}

func TestHostTurnDefaults(t *testing.T) {
	h := NewHost(HostConfig{TurnDefaults: Limits{WallTime: 200 * time.Millisecond, OutputBytes: 3}})
	r, err := h.Run(context.Background(), Cmd{Args: []string{"/bin/sh", "-c", "echo 12345; sleep 5"}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut || string(r.Stdout) != "123" || !r.Truncated {
		t.Errorf("defaults not applied: %+v", r)
	}
}

func TestHostContextCancel(t *testing.T) {
	h := NewHost(HostConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	r, err := h.Run(ctx, Cmd{Args: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Signal != "SIGKILL" || r.TimedOut {
		t.Errorf("want killed by cancel, not timed out: %+v", r)
	}
}

func TestHostStart(t *testing.T) {
	testStart(t, NewHost(HostConfig{}))
}

// testStart drives a long-lived command through its pipes.
func testStart(t *testing.T, runner Runner) {
	t.Helper()
	dir := t.TempDir()
	p, err := runner.Start(context.Background(), Cmd{
		Args:   []string{"/bin/sh", "-c", `while read x; do echo "got $x"; done; echo bye >&2`},
		Dir:    dir,
		Mounts: []Mount{{Source: dir}},
		Limits: Limits{WallTime: 10 * time.Second},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if _, err := io.WriteString(p.Stdin(), "a\nb\n"); err != nil {
		t.Fatal(err)
	}
	p.Stdin().Close()
	out, err := io.ReadAll(p.Stdout())
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "got a\ngot b\n" || r.ExitCode != 0 || string(r.Stderr) != "bye\n" {
		t.Errorf("out %q result %+v", out, r)
	}

	p, err = runner.Start(context.Background(), Cmd{Args: []string{"sleep", "30"}, Dir: dir, Mounts: []Mount{{Source: dir}}})
	if err != nil {
		t.Fatal(err)
	}
	p.Kill()
	r, err = p.Wait()
	if err != nil || r.Signal != "SIGKILL" {
		t.Errorf("after Kill: %+v %v", r, err)
	}
}
