//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// noopBot compiles a C program that writes its command and exits, the
// cheapest possible turn.
func noopBot(b *testing.B) (prog, round string) {
	b.Helper()
	dir := b.TempDir()
	src := filepath.Join(dir, "bot.c")
	code := `#include <stdio.h>
int main(int argc, char **argv) {
	char p[4096];
	if (argc < 3) return 2;
	snprintf(p, sizeof p, "%s/command.txt", argv[2]);
	FILE *f = fopen(p, "w");
	if (!f) return 1;
	fputs("1,0,0", f);
	return fclose(f) != 0;
}
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		b.Fatal(err)
	}
	prog = filepath.Join(dir, "bot")
	if out, err := exec.Command("cc", "-O1", "-o", prog, src).CombinedOutput(); err != nil {
		b.Fatalf("compile: %v\n%s", err, out)
	}
	round = filepath.Join(dir, "round")
	if err := os.Mkdir(round, 0o755); err != nil {
		b.Fatal(err)
	}
	return prog, round
}

// reportMedian adds the median of times, in milliseconds, as metric unit.
func reportMedian(b *testing.B, times []time.Duration, unit string) {
	slices.Sort(times)
	if len(times) > 0 {
		b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, unit)
	}
}

// BenchmarkTurnBare is the unsandboxed baseline: os/exec and wait.
func BenchmarkTurnBare(b *testing.B) {
	prog, round := noopBot(b)
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := exec.Command(prog, "A", round).Run(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	reportMedian(b, times, "median-ms")
}

// benchmarkTurn times one turn through r, each right after the same turn
// run bare, so that the overhead is measured pairwise: on a busy machine
// the load moves both alike. It reports the medians of the sandboxed turn,
// of the bare turn, and of the difference (overhead-ms).
func benchmarkTurn(b *testing.B, r Runner, prog, round string) {
	cmd := Cmd{
		Args:   []string{prog, "A", round},
		Dir:    filepath.Dir(prog),
		Mounts: []Mount{{Source: filepath.Dir(prog), Writable: true}},
		Limits: Limits{WallTime: 4 * time.Second, CPUTime: 4 * time.Second, MemoryBytes: 512 << 20,
			Processes: 64, FileSizeBytes: 16 << 20, OpenFiles: 256, OutputBytes: 1 << 20},
	}
	var times, bare, overhead []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := exec.Command(prog, "A", round).Run(); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		res, err := r.Run(context.Background(), cmd)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("turn: %v %+v", err, res)
		}
		end := time.Now()
		bare = append(bare, mid.Sub(start))
		times = append(times, end.Sub(mid))
		overhead = append(overhead, end.Sub(mid)-mid.Sub(start))
	}
	reportMedian(b, times, "median-ms")
	reportMedian(b, bare, "bare-median-ms")
	reportMedian(b, overhead, "overhead-ms")
}

// BenchmarkTurnHost is one turn through Host with all limits set.
func BenchmarkTurnHost(b *testing.B) {
	prog, round := noopBot(b)
	benchmarkTurn(b, NewHost(HostConfig{}), prog, round)
}

// BenchmarkTurnSession is one turn in a Session: one sandbox per bot per match.
func BenchmarkTurnSession(b *testing.B) {
	r, err := NewBwrap(BwrapConfig{})
	if err != nil {
		b.Fatal(err)
	}
	prog, round := noopBot(b)
	s, err := r.NewSession([]Mount{{Source: filepath.Dir(prog), Writable: true}}, Limits{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchmarkTurn(b, s, prog, round)
}

// BenchmarkTurnBwrap is one turn in a fresh bubblewrap sandbox with cgroups.
func BenchmarkTurnBwrap(b *testing.B) {
	r, err := NewBwrap(BwrapConfig{})
	if err != nil {
		b.Fatal(err)
	}
	if r.cgroups == nil {
		b.Log("cgroups not available: rlimits only")
	}
	prog, round := noopBot(b)
	benchmarkTurn(b, r, prog, round)
}

// BenchmarkTurnBwrapNoCgroups shows the cost of the cgroups in a turn.
func BenchmarkTurnBwrapNoCgroups(b *testing.B) {
	r, err := NewBwrap(BwrapConfig{NoCgroups: true})
	if err != nil {
		b.Fatal(err)
	}
	prog, round := noopBot(b)
	benchmarkTurn(b, r, prog, round)
}

// BenchmarkTurnSessionPython is one Python start in a Session, paired with
// the same start on the host: the interpreter's own cost inside the
// sandbox (its files, its links, its caches) against outside.
func BenchmarkTurnSessionPython(b *testing.B) {
	// The interpreter itself, not a version manager's shim in front of it.
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Skip("no python3")
	}
	python := strings.TrimSpace(string(out))
	r, err := NewBwrap(BwrapConfig{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	s, err := r.NewSession([]Mount{{Source: dir, Writable: true}}, Limits{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	args := []string{python, "-c", "import json, os, random"}
	cmd := Cmd{Args: args, Dir: dir, Mounts: []Mount{{Source: dir, Writable: true}},
		Limits: Limits{WallTime: 4 * time.Second, OutputBytes: 1 << 20}}
	var times, bare, cpu, bareCPU []time.Duration
	for b.Loop() {
		start := time.Now()
		c := exec.Command(args[0], args[1:]...)
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		res, err := s.Run(context.Background(), cmd)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("turn: %v %+v", err, res)
		}
		bare, times = append(bare, mid.Sub(start)), append(times, time.Since(mid))
		bareCPU, cpu = append(bareCPU, c.ProcessState.UserTime()+c.ProcessState.SystemTime()), append(cpu, res.CPU)
	}
	reportMedian(b, times, "median-ms")
	reportMedian(b, bare, "bare-median-ms")
	reportMedian(b, cpu, "cpu-ms")
	reportMedian(b, bareCPU, "bare-cpu-ms")
}

// BenchmarkTurnSessionRound is one turn as a match plays it: in a Session
// whose replay folder is a PerCommand mount, each turn with a round folder
// of its own mounted for it, paired with the same turn run bare.
func BenchmarkTurnSessionRound(b *testing.B) {
	r, err := NewBwrap(BwrapConfig{})
	if err != nil {
		b.Fatal(err)
	}
	prog, _ := noopBot(b)
	botDir, replay := filepath.Dir(prog), b.TempDir()
	s, err := r.NewSession([]Mount{{Source: botDir, Writable: true}, {Source: replay, Writable: true, PerCommand: true}},
		TurnDefaults())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var times, bare, overhead []time.Duration
	n := 0
	for b.Loop() {
		n++
		round := filepath.Join(replay, fmt.Sprintf("Phase 2 - Round %d", n), "A")
		if err := os.MkdirAll(round, 0o755); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := exec.Command(prog, "A", round).Run(); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		res, err := s.Run(context.Background(), Cmd{Args: []string{prog, "A", round}, Dir: botDir,
			Mounts: []Mount{{Source: round, Writable: true}}, Limits: Limits{WallTime: 4 * time.Second, OutputBytes: 64 << 10}})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("turn: %v %+v", err, res)
		}
		end := time.Now()
		bare = append(bare, mid.Sub(start))
		times = append(times, end.Sub(mid))
		overhead = append(overhead, end.Sub(mid)-mid.Sub(start))
	}
	if st := s.Stats(); st.Fresh != 0 {
		b.Fatalf("%d turns ran in fresh sandboxes", st.Fresh)
	}
	reportMedian(b, times, "median-ms")
	reportMedian(b, bare, "bare-median-ms")
	reportMedian(b, overhead, "overhead-ms")
}

// BenchmarkSessionStart is a seat's sandbox for a match: the session
// started (its namespaces, cgroup and supervisor) and closed.
func BenchmarkSessionStart(b *testing.B) {
	r, err := NewBwrap(BwrapConfig{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	round := filepath.Join(dir, "round")
	if err := os.Mkdir(round, 0o755); err != nil {
		b.Fatal(err)
	}
	var starts []time.Duration
	for b.Loop() {
		t := time.Now()
		s, err := r.NewSession([]Mount{{Source: dir, Writable: true}, {Source: round, Writable: true, PerCommand: true}}, Limits{})
		if err != nil {
			b.Fatal(err)
		}
		starts = append(starts, time.Since(t))
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	reportMedian(b, starts, "start-ms")
}
