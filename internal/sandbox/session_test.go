//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/testenv"
	"golang.org/x/sys/unix"
)

func TestSession(t *testing.T) {
	t.Setenv("BROADSIDE_TEST_SECRET", "s3cr3t")
	b := newTestBwrap(t)
	dir := t.TempDir()
	round := filepath.Join(dir, "round-1")
	if err := os.Mkdir(round, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := b.NewSession([]Mount{{Source: dir, Writable: true}}, Limits{WallTime: 5 * time.Second, MemoryBytes: 256 << 20, Processes: 32, OutputBytes: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	leftover := uniqueSleep()
	turns := []struct {
		name  string
		cmd   Cmd
		check func(t *testing.T, r Result)
	}{
		{"turn writes its command", Cmd{Args: []string{"/bin/sh", "-c", `printf 1,0,0 > "$0/command.txt"; env; echo $$`, round}, Dir: dir,
			Mounts: []Mount{{Source: round, Writable: true}}},
			func(t *testing.T, r Result) {
				got, _ := os.ReadFile(filepath.Join(round, "command.txt"))
				if string(got) != "1,0,0" || r.ExitCode != 0 || strings.Contains(string(r.Stdout), "SECRET") || strings.Contains(string(r.Stdout), supervisorEnv) {
					t.Errorf("command %q result %+v %s", got, r, r.Stdout)
				}
			}},
		{"leftover process is killed after the turn", Cmd{Args: []string{"/bin/sh", "-c", "setsid sleep " + leftover + " & echo started"}},
			func(t *testing.T, r Result) {
				if string(r.Stdout) != "started\n" {
					t.Errorf("result %+v", r)
				}
			}},
		{"wall time", Cmd{Args: []string{"sleep", "30"}, Limits: Limits{WallTime: 300 * time.Millisecond}},
			func(t *testing.T, r Result) {
				if !r.TimedOut {
					t.Errorf("want timed out: %+v", r)
				}
			}},
		{"memory", Cmd{Args: []string{"python3", "-c", "x = bytearray(1 << 30)"}},
			func(t *testing.T, r Result) {
				if r.ExitCode == 0 {
					t.Errorf("1 GiB allocated: %+v", r)
				}
			}},
		{"memory of the command stopped at its own limit, not the session's", Cmd{Args: []string{"python3", "-c",
			"import time\nx = []\nwhile True:\n    x.append(bytearray(1 << 20))\n    time.sleep(0.001)"},
			Limits: Limits{MemoryBytes: 64 << 20}},
			func(t *testing.T, r Result) {
				if !r.MemoryExceeded || r.Signal != "SIGKILL" || r.TimedOut {
					t.Errorf("want killed for memory: %+v %s", r, r.Stderr)
				}
			}},
		{"CPU time of a tree of processes", Cmd{Args: []string{"/bin/sh", "-c", "while :; do :; done & while :; do :; done"},
			Limits: Limits{CPUTime: 500 * time.Millisecond}},
			func(t *testing.T, r Result) {
				if !r.CPUExceeded || r.TimedOut || r.CPU < 500*time.Millisecond || r.CPU > 1500*time.Millisecond { // RLIMIT_CPU alone would allow 2 s
					t.Errorf("want killed at about 500ms of CPU: %+v", r)
				}
			}},
		{"kill -9 -1 and kill 1 do not break the next turn", Cmd{Args: []string{"/bin/sh", "-c", "kill -TERM 1; kill -9 1; kill -9 -1; echo alive"}},
			func(t *testing.T, r Result) {}},
		{"signals that crash a Go program do not reach the supervisor", Cmd{Args: []string{"/bin/sh", "-c",
			"for s in SEGV BUS FPE ILL ABRT TRAP SYS QUIT STKFLT USR1 USR2 PROF VTALRM XCPU XFSZ PWR STOP; do kill -$s 1; done; sleep 0.1; kill -CONT 1; echo sent"}},
			func(t *testing.T, r Result) {
				if string(r.Stdout) != "sent\n" {
					t.Errorf("result %+v %s", r, r.Stderr)
				}
			}},
		{"commands start with default signal dispositions", Cmd{Args: []string{"/bin/grep", "SigIgn", "/proc/self/status"}},
			func(t *testing.T, r Result) {
				// What the test process itself inherited ignored (make, nohup)
				// passes through exec; the supervisor must add nothing to it.
				got := strings.Fields(string(r.Stdout))
				if len(got) != 2 {
					t.Fatalf("SigIgn line: %q", r.Stdout)
				}
				mask, err := strconv.ParseUint(got[1], 16, 64)
				if err != nil {
					t.Fatalf("SigIgn line: %q", r.Stdout)
				}
				if extra := mask &^ ignoredSignals(t); extra != 0 {
					t.Errorf("the command ignores signals the caller does not (mask %#x): %q", extra, r.Stdout)
				}
			}},
		{"next turn runs", Cmd{Args: []string{"/bin/echo", "ok"}},
			func(t *testing.T, r Result) {
				if string(r.Stdout) != "ok\n" || r.ExitCode != 0 {
					t.Errorf("result %+v", r)
				}
			}},
		{"mount outside the session runs in a fresh sandbox", Cmd{Args: []string{"/bin/ls", t.TempDir()}, Mounts: []Mount{{Source: os.TempDir()}}},
			func(t *testing.T, r Result) {
				if r.ExitCode != 0 {
					t.Errorf("result %+v %s", r, r.Stderr)
				}
			}},
	}
	for _, tc := range turns {
		r, err := s.Run(context.Background(), tc.cmd)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		t.Run(tc.name, func(t *testing.T) { tc.check(t, r) })
		if pids := procsWithMarker(t, leftover); len(pids) > 0 {
			t.Errorf("%s: processes left: %v", tc.name, pids)
		}
	}
	if s.broken {
		t.Errorf("the session broke")
	}
}

// TestSessionPerCommandMounts plays turns the way a match does: the session
// holds the bot's folder and, per command, the bot's own round folder in
// the replay folder; the opponent's round folders stay out of sight.
func TestSessionPerCommandMounts(t *testing.T) {
	b := newTestBwrap(t)
	root := t.TempDir()
	bot, replay := filepath.Join(root, "bot"), filepath.Join(root, "replay")
	for _, d := range []string{bot, replay} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err := b.NewSession([]Mount{{Source: bot, Writable: true}, {Source: replay, Writable: true, PerCommand: true}},
		Limits{WallTime: 5 * time.Second, OutputBytes: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.stages) != 1 {
		t.Fatalf("the session has %d stages, want 1 (the worker runs as root)", len(s.stages))
	}
	script := `
cd "$0"
echo "bot $(pwd)"
echo "replay $(cd "$2" && find . | sort | tr '\n' ' ')"
cat "$1/state.json" 2>/dev/null && echo "read own state"
cat "$1/../B/state.json" 2>/dev/null && echo "read opponent state"
printf 1,0,0 > "$1/command.txt"
echo x > "$1/../B/command.txt" 2>/dev/null && echo "wrote opponent command"
echo turn >> memory.txt
`
	for round := 1; round <= 3; round++ {
		dir := filepath.Join(replay, fmt.Sprintf("Phase 2 - Round %d", round))
		own, opp := filepath.Join(dir, "A"), filepath.Join(dir, "B")
		for _, d := range []string{own, opp} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		writeFile(t, filepath.Join(own, "state.json"), "own")
		writeFile(t, filepath.Join(opp, "state.json"), "opponent ships")
		r, err := s.Run(context.Background(), Cmd{
			Args:   []string{"/bin/sh", "-c", script, bot, own, replay},
			Dir:    bot,
			Mounts: []Mount{{Source: own, Writable: true}},
		})
		if err != nil {
			t.Fatal(err)
		}
		out := string(r.Stdout)
		// Only this round's own folder: no other round, no opponent.
		want := fmt.Sprintf("bot %s\nreplay . ./%[2]s ./%[2]s/A ./%[2]s/A/state.json \nownread own state\n", bot, filepath.Base(dir))
		if r.ExitCode != 0 || out != want {
			t.Errorf("round %d: exit %d, output\n%s\nwant\n%s\nstderr %s", round, r.ExitCode, out, want, r.Stderr)
		}
		if got, _ := os.ReadFile(filepath.Join(own, "command.txt")); string(got) != "1,0,0" {
			t.Errorf("round %d: command.txt = %q", round, got)
		}
		if exists(filepath.Join(opp, "command.txt")) {
			t.Errorf("round %d: the bot wrote into its opponent's folder", round)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(bot, "memory.txt")); string(got) != "turn\nturn\nturn\n" {
		t.Errorf("the bot's folder did not keep its writes between turns: %q", got)
	}
	if st := s.Stats(); s.broken || st.Fresh != 0 || st.Commands != 4 {
		t.Errorf("turns ran in fresh sandboxes: %+v, broken %v", st, s.broken)
	}
	stage := s.stages[0].dir
	var fs unix.Statfs_t
	if err := unix.Statfs(stage, &fs); err != nil || fs.Type != unix.TMPFS_MAGIC {
		t.Errorf("the stage %s is not a tmpfs of its own: type %#x, %v", stage, fs.Type, err)
	}
	// The last command's mount stays for the next command; the earlier
	// ones, of other folders, are gone.
	if entries, err := os.ReadDir(stage); err != nil || len(entries) != 1 || entries[0].Name() != "Phase 2 - Round 3" {
		t.Errorf("the stage %s holds %v after the turns (%v), want the last round's folder only", stage, entries, err)
	}
	// Close right after a turn, its mount still going: the stage goes, the
	// round folder keeps its files.
	last := filepath.Join(replay, "Phase 2 - Round 4", "A")
	if err := os.MkdirAll(last, 0o755); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Run(context.Background(), Cmd{Args: []string{"/bin/sh", "-c", `printf 1,0,0 > "$0/command.txt"`, last},
		Dir: bot, Mounts: []Mount{{Source: last, Writable: true}}}); err != nil || r.ExitCode != 0 {
		t.Fatalf("last turn: %v %+v", err, r)
	}
	s.Close()
	if exists(stage) {
		t.Errorf("the stage %s is left after Close", stage)
	}
	if got, _ := os.ReadFile(filepath.Join(last, "command.txt")); string(got) != "1,0,0" {
		t.Errorf("the last round folder lost its files at Close: %q", got)
	}
}

// TestSessionMovesTurnFolder plays turns whose round folder is one host
// folder shown at each round's path, as a match's turn folder is: the
// mount moves from one round's path to the next, each turn sees its own
// round only, and a command without it sees none.
func TestSessionMovesTurnFolder(t *testing.T) {
	b := newTestBwrap(t)
	root := t.TempDir()
	bot, replay, turn := filepath.Join(root, "bot"), filepath.Join(root, "replay"), filepath.Join(root, "turns", "A")
	for _, d := range []string{bot, replay, turn} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err := b.NewSession([]Mount{{Source: bot, Writable: true}, {Source: replay, Writable: true, PerCommand: true}},
		Limits{WallTime: testenv.Scaled(10 * time.Second), OutputBytes: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.stages) != 1 {
		t.Fatalf("the session has %d stages, want 1 (the worker runs as root)", len(s.stages))
	}
	stage := s.stages[0].dir
	const script = `echo "replay $(cd "$1" && find . | sort | tr '\n' ' ')"; cat "$0/state.json" 2>/dev/null; [ -z "$0" ] || printf 1,0,0 > "$0/command.txt"`
	run := func(target string, mounts []Mount) string {
		t.Helper()
		r, err := s.Run(context.Background(), Cmd{Args: []string{"/bin/sh", "-c", script, target, replay}, Dir: bot, Mounts: mounts})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%v: %v %+v", mounts, err, r)
		}
		return string(r.Stdout)
	}
	// mountsBelow counts the mounts on the stage's folders, as the
	// worker's mount table has them.
	mountsBelow := func() int {
		data, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(strings.ReplaceAll(f[4], `\040`, " "), stage+"/") {
				n++
			}
		}
		return n
	}
	for round := 1; round <= 3; round++ {
		name := fmt.Sprintf("Phase 2 - Round %d", round)
		target := filepath.Join(replay, name, "A")
		writeFile(t, filepath.Join(turn, "state.json"), name)
		os.Remove(filepath.Join(turn, "command.txt"))
		out := run(target, []Mount{{Source: turn, Target: target, Writable: true}})
		want := fmt.Sprintf("replay . ./%[1]s ./%[1]s/A ./%[1]s/A/state.json \n%[1]s", name)
		if out != want {
			t.Errorf("round %d: output\n%s\nwant\n%s", round, out, want)
		}
		if got, _ := os.ReadFile(filepath.Join(turn, "command.txt")); string(got) != "1,0,0" {
			t.Errorf("round %d: command.txt = %q", round, got)
		}
		if entries, err := os.ReadDir(stage); err != nil || len(entries) != 1 || entries[0].Name() != name {
			t.Errorf("round %d: the stage holds %v (%v), want %q only", round, entries, err, name)
		}
		if n := mountsBelow(); n != 1 {
			t.Errorf("round %d: %d mounts on the stage, want 1", round, n)
		}
	}
	// The host folder removed and made again: the turn sees the new one,
	// not the removed one that the previous turn's mount still holds.
	if err := os.RemoveAll(turn); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(turn, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(turn, "state.json"), "remade")
	remade := filepath.Join(replay, "Phase 2 - Round 4", "A")
	if out, want := run(remade, []Mount{{Source: turn, Target: remade, Writable: true}}),
		"replay . ./Phase 2 - Round 4 ./Phase 2 - Round 4/A ./Phase 2 - Round 4/A/state.json \nremade"; out != want {
		t.Errorf("a folder made again: output\n%s\nwant\n%s", out, want)
	}
	if got, _ := os.ReadFile(filepath.Join(turn, "command.txt")); string(got) != "1,0,0" {
		t.Errorf("a folder made again: command.txt = %q", got)
	}
	// A command without the folder sees no round, and leaves none.
	if out := run("", nil); out != "replay . \n" {
		t.Errorf("a command without a round folder: output %q", out)
	}
	if entries, err := os.ReadDir(stage); err != nil || len(entries) != 0 || mountsBelow() != 0 {
		t.Errorf("the stage holds %v (%v), %d mounts, after a command without a round folder", entries, err, mountsBelow())
	}
	// And the folder shows again after it.
	writeFile(t, filepath.Join(turn, "state.json"), "again")
	if out, want := run(filepath.Join(replay, "Phase 2 - Round 5", "A"),
		[]Mount{{Source: turn, Target: filepath.Join(replay, "Phase 2 - Round 5", "A"), Writable: true}}),
		"replay . ./Phase 2 - Round 5 ./Phase 2 - Round 5/A ./Phase 2 - Round 5/A/command.txt ./Phase 2 - Round 5/A/state.json \nagain"; out != want {
		t.Errorf("round 5: output\n%s\nwant\n%s", out, want)
	}
	if st := s.Stats(); s.broken || st.Fresh != 0 {
		t.Errorf("turns ran in fresh sandboxes: %+v, broken %v", st, s.broken)
	}
}

// TestSessionStart starts long-lived processes from a session: each in a
// fresh sandbox that sees the session's folder, as the stdin/stdout
// protocols need.
func TestSessionStart(t *testing.T) {
	s, dir := newFolderSession(t, newTestBwrap(t), Limits{WallTime: 10 * time.Second})
	p, err := s.Start(context.Background(), Cmd{Args: []string{"/bin/sh", "-c", "read x; echo \"got $x\" > got.txt; echo done"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stdin().Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 5)
	if _, err := io.ReadFull(p.Stdout(), out); err != nil || string(out) != "done\n" {
		t.Errorf("stdout %q %v", out, err)
	}
	r, err := p.Wait()
	if err != nil || r.ExitCode != 0 {
		t.Errorf("wait: %+v %v", r, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "got.txt")); string(got) != "got hello\n" {
		t.Errorf("got.txt = %q", got)
	}
	if _, err := s.Start(context.Background(), Cmd{}); err == nil {
		t.Error("Start of an empty command succeeded")
	}
}

// TestRemoveStaleStages cleans up after a worker that died during a
// session, with a round folder still mounted on its stage: the stage goes,
// the round folder's files stay.
func TestRemoveStaleStages(t *testing.T) {
	// No pid reaches this (pid_max is at most 2^22).
	dir, err := os.MkdirTemp("", "broadside-stage-99999999-")
	if err != nil {
		t.Fatal(err)
	}
	round := t.TempDir()
	writeFile(t, filepath.Join(round, "state.json"), "keep")
	mnt := filepath.Join(dir, "Phase 1 - Round 0", "A")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		t.Fatalf("bind (the worker runs as root): %v", err)
	}
	if err := unix.Mount(round, mnt, "", unix.MS_BIND, ""); err != nil {
		unix.Unmount(dir, unix.MNT_DETACH)
		t.Fatal(err)
	}
	removeStaleStages()
	if exists(dir) {
		t.Errorf("stale stage %s left", dir)
		unix.Unmount(dir, unix.MNT_DETACH)
		removeEmptyDirs(dir)
	}
	if got, _ := os.ReadFile(filepath.Join(round, "state.json")); string(got) != "keep" {
		t.Errorf("the round folder mounted on the stage lost its files: %q", got)
	}
}

// ignoredSignals is the SigIgn mask of the test process itself.
func ignoredSignals(t *testing.T) uint64 {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return mask
		}
	}
	t.Fatal("no SigIgn line in /proc/self/status")
	return 0
}

// TestSessionAnswerDoesNotWaitForTheWatch holds the turn watch's disk check
// (a walk of a large bot folder) until the command has answered: Run
// returns at the answer, and the session goes on.
func TestSessionAnswerDoesNotWaitForTheWatch(t *testing.T) {
	s, dir := newFolderSession(t, newTestBwrap(t), Limits{WallTime: 20 * time.Second})
	flag := filepath.Join(dir, "checking")
	release := make(chan struct{})
	s.wrapDisk = func(check func() string) func() string {
		return func() string {
			if !exists(flag) {
				writeFile(t, flag, "")
				<-release
			}
			return check()
		}
	}
	done := make(chan error, 1)
	var r Result
	go func() {
		var err error
		// The command ends once the check is under way.
		r, err = s.Run(context.Background(), Cmd{Args: []string{"/bin/sh", "-c", `until [ -e "$0" ]; do sleep 0.01; done; echo answered`, flag}, Dir: dir})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil || r.ExitCode != 0 || string(r.Stdout) != "answered\n" {
			t.Errorf("turn: %v %+v", err, r)
		}
	case <-time.After(15 * time.Second):
		t.Error("Run waited for the watch's disk check to finish")
		close(release)
		<-done
		return
	}
	close(release)
	s.wrapDisk = nil
	if r, err := s.Run(context.Background(), Cmd{Args: []string{"/bin/echo", "next"}}); err != nil || string(r.Stdout) != "next\n" || s.broken {
		t.Errorf("next turn: %v %+v, broken %v", err, r, s.broken)
	}
}

// TestSessionPriority checks that the supervisor runs at a higher priority
// than the worker (the worker runs as root) and that the commands it
// starts, and their children, run at the worker's.
func TestSessionPriority(t *testing.T) {
	s, _ := newFolderSession(t, newTestBwrap(t), Limits{WallTime: 10 * time.Second})
	worker, err := ownNice()
	if err != nil {
		t.Fatal(err)
	}
	// Field 19 of /proc/PID/stat is the nice value; the command name in
	// field 2 has no spaces here.
	r, err := s.Run(context.Background(), Cmd{Args: []string{"/bin/sh", "-c",
		`cut -d' ' -f19 /proc/1/stat; cut -d' ' -f19 /proc/$$/stat; sh -c 'cut -d" " -f19 /proc/$$/stat'`}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(r.Stdout))
	want := []string{fmt.Sprint(max(worker-supervisorBoost, -20)), fmt.Sprint(worker), fmt.Sprint(worker)}
	if r.ExitCode != 0 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("nice of the supervisor, the command and its child: got %q, want %q (%s)", got, want, r.Stderr)
	}
	// A command cannot take the supervisor's priority back.
	r, err = s.Run(context.Background(), Cmd{Args: []string{"/bin/sh", "-c", `renice -n -5 -p $$ >/dev/null 2>&1 && echo raised; cut -d' ' -f19 /proc/$$/stat`}})
	if err != nil || strings.TrimSpace(string(r.Stdout)) != fmt.Sprint(worker) {
		t.Errorf("a command raised its own priority: %v %q", err, r.Stdout)
	}
}

// TestSessionLimitsOutsideTheSession checks that the commands a session
// runs in a fresh sandbox, after it broke or as long-lived processes, keep
// the session's limits: a bot that killed its supervisor, or an In Deep
// Ship bot, must not fork without bound.
func TestSessionLimitsOutsideTheSession(t *testing.T) {
	b := newTestBwrap(t)
	// Forty background processes, against a limit of twelve.
	forks := Cmd{Args: []string{"/bin/sh", "-c", `i=0; while [ $i -lt 40 ]; do sleep 5 & i=$((i+1)); done; echo started`},
		Limits: Limits{WallTime: 3 * time.Second}}
	limits := Limits{Processes: 12}
	refused := func(t *testing.T, r Result) {
		t.Helper()
		if !strings.Contains(strings.ToLower(string(r.Stderr)), "fork") {
			t.Errorf("forty processes started under a limit of twelve: exit %d, stderr %q", r.ExitCode, r.Stderr)
		}
		if !r.ProcessLimitHit {
			t.Errorf("the result does not say the process limit was hit: %+v", r)
		}
	}
	t.Run("a turn of the session", func(t *testing.T) {
		s, _ := newFolderSession(t, b, limits)
		r, err := s.Run(context.Background(), forks)
		if err != nil {
			t.Fatal(err)
		}
		refused(t, r)
		// The next turn forks nothing: the limit hit was the last one's.
		r, err = s.Run(context.Background(), Cmd{Args: []string{"/bin/true"}})
		if err != nil {
			t.Fatal(err)
		}
		if r.ProcessLimitHit {
			t.Errorf("a turn that forked nothing is said to have hit the process limit: %+v", r)
		}
	})
	t.Run("after the session broke", func(t *testing.T) {
		s, _ := newFolderSession(t, b, limits)
		s.breakSession()
		r, err := s.Run(context.Background(), forks)
		if err != nil {
			t.Fatal(err)
		}
		if st := s.Stats(); st.Fresh != 1 {
			t.Fatalf("the command did not run in a fresh sandbox: %+v", st)
		}
		refused(t, r)
	})
	t.Run("a long-lived process", func(t *testing.T) {
		s, _ := newFolderSession(t, b, limits)
		p, err := s.Start(context.Background(), forks)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, p.Stdout())
		r, err := p.Wait()
		if err != nil {
			t.Fatal(err)
		}
		refused(t, r)
	})
}

// newFolderSession starts a session of b that sees one writable folder of
// the test's, with limits, and closes it when the test ends. It returns
// the session and the folder.
func newFolderSession(t *testing.T, b *Bwrap, limits Limits) (*Session, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := b.NewSession([]Mount{{Source: dir, Writable: true}}, limits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// TestSupervisorReservesThreads checks that a session's supervisor has its
// OS threads before its first command: a fork bomb can take every process
// the session's cgroup allows, and a Go program that then needs a thread
// dies, ending the session.
func TestSupervisorReservesThreads(t *testing.T) {
	b := newTestBwrap(t)
	dir := t.TempDir()
	s, err := b.NewSession([]Mount{{Source: dir, Writable: true}}, Limits{WallTime: 5 * time.Second, Processes: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r, err := s.Run(context.Background(), Cmd{Args: []string{"/bin/true"}, Dir: dir}); err != nil || r.ExitCode != 0 {
		t.Fatalf("first command: %+v, %v", r, err)
	}
	most := 0
	for _, pid := range descendants(t, s.cmd.Process.Pid) {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			continue // ended since
		}
		for line := range strings.Lines(string(status)) {
			if n, ok := strings.CutPrefix(line, "Threads:"); ok {
				threads, _ := strconv.Atoi(strings.TrimSpace(n))
				most = max(most, threads)
			}
		}
	}
	if most < supervisorThreads {
		t.Fatalf("the session's processes have at most %d threads, want the supervisor's %d", most, supervisorThreads)
	}
}

// descendants lists the processes under pid, from /proc.
func descendants(t *testing.T, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		// The parent's pid follows the command's name in parentheses,
		// and its state.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 {
			if parent, err := strconv.Atoi(fields[1]); err == nil {
				children[parent] = append(children[parent], p)
			}
		}
	}
	var out []int
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	return out
}
