//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/testenv"
	"golang.org/x/sys/unix"
)

// TestSessionDiskBudget plays turns that each stay within the per-command
// disk bound: together they may not write more than the session's bound,
// while a bot that rewrites the same state file every turn is never cut.
func TestSessionDiskBudget(t *testing.T) {
	caps := Probe(context.Background())
	testenv.Require(t, "an enforced sandbox", caps.Enforced(), caps.String())
	b, err := NewBwrap(BwrapConfig{DiskBytes: 1 << 20, SessionDiskBytes: 3 << 20})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		// script writes in turn n, with $0 the bot folder and $1 the turn's
		// round folder; it ends by creating ran-n in the round folder.
		script string
		// cut is the first turn that must not run; 0: every turn runs. The
		// turn before it goes over the bound: it may be killed as it writes
		// or end before the watchdog looks.
		cut int
	}{
		{"new files in the round folders add up", `head -c 900000 /dev/zero > "$1/out.bin"`, 5},
		{"new files in the bot's folder add up", `head -c 900000 /dev/zero > "$0/out-$2.bin"`, 5},
		{"rewriting one state file each turn does not", `head -c 900000 /dev/zero > "$0/state.bin"`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			bot, replay := filepath.Join(root, "bot"), filepath.Join(root, "replay")
			for _, d := range []string{bot, replay} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			s, err := b.NewSession([]Mount{{Source: bot, Writable: true}, {Source: replay, Writable: true, PerCommand: true}},
				Limits{WallTime: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for n := 1; n <= 8; n++ {
				round := filepath.Join(replay, fmt.Sprintf("round-%d", n))
				if err := os.Mkdir(round, 0o755); err != nil {
					t.Fatal(err)
				}
				r, err := s.Run(context.Background(), Cmd{
					Args:   []string{"/bin/sh", "-c", tc.script + ` && touch "$1/ran"`, bot, round, fmt.Sprint(n)},
					Dir:    bot,
					Mounts: []Mount{{Source: round, Writable: true}},
				})
				if err != nil {
					t.Fatal(err)
				}
				_, statErr := os.Stat(filepath.Join(round, "ran"))
				ran := statErr == nil
				cutShort := strings.Contains(string(r.Stderr), "over the session")
				switch {
				case tc.cut != 0 && n >= tc.cut:
					if ran || !cutShort {
						t.Errorf("turn %d ran (%v) past the session's bound: exit %d, %s", n, ran, r.ExitCode, r.Stderr)
					}
				case tc.cut != 0 && n == tc.cut-1 && cutShort:
				case !ran || r.ExitCode != 0:
					t.Errorf("turn %d did not run: exit %d, %s", n, r.ExitCode, r.Stderr)
				}
			}
		})
	}
}

// TestFileClockAfter checks the clock a session's next command counts its
// writes from: past the tick its previous command ended in, so a file
// written in that tick counts for that command only.
func TestFileClockAfter(t *testing.T) {
	for range 20 {
		end := fileClock()
		since := fileClockAfter(end)
		if since.Sec < end.Sec || (since.Sec == end.Sec && since.Nsec <= end.Nsec) {
			t.Fatalf("fileClockAfter(%v) = %v, not past it", end, since)
		}
	}
	// A clock set back does not hold the next command for long.
	ahead := fileClock()
	ahead.Sec += 3600
	start := time.Now()
	fileClockAfter(ahead)
	if waited := time.Since(start); waited < fileClockWait {
		t.Fatalf("returned after %v, before the clock passed and before %v", waited, fileClockWait)
	}
}

// TestSessionKeepsTurnFolderWatch plays turns whose round folder is one
// host folder shown at each round's path, as a match's turn folder is:
// the session keeps the folder's watch from one turn to the next, the
// watch still sees what each turn writes, and a folder made again or
// another folder gets a watch of its own.
func TestSessionKeepsTurnFolderWatch(t *testing.T) {
	s, bot, replay, turns := newTurnSession(t, BwrapConfig{DiskBytes: 1 << 20})
	for _, d := range []string{filepath.Join(turns, "A"), filepath.Join(turns, "B")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if s.tree == nil {
		t.Fatal("no inotify watch on this machine")
	}
	n := 0
	turn := func(seat, script string) Result {
		t.Helper()
		n++
		return playTurn(t, s, bot, replay, filepath.Join(turns, seat), n, script)
	}
	// What the engine does between turns: the bot's files removed, its
	// own written over.
	engine := func(seat string) {
		t.Helper()
		dir := filepath.Join(turns, seat)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(fmt.Sprint(n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	if r := turn("A", `echo 1,2,3 > "$1/command.txt"`); r.ExitCode != 0 {
		t.Fatalf("turn 1: %+v", r)
	}
	kept := s.turns
	engine("A")
	before, _ := kept.generation()
	if r := turn("A", `mkdir "$1/notes" && echo x > "$1/notes/x" && echo 1,2,3 > "$1/command.txt"`); r.ExitCode != 0 {
		t.Fatalf("turn 2: %+v", r)
	}
	if s.turns != kept {
		t.Fatal("turn 2 in the same folder got a new watch")
	}
	if after, ok := kept.generation(); !ok || after == before {
		t.Fatalf("the kept watch did not see turn 2's writes: generation %d, then %d (%v)", before, after, ok)
	}
	engine("A")
	if r := turn("A", `true`); r.ExitCode != 0 || s.turns != kept {
		t.Fatalf("turn 3: %+v, same watch %v", r, s.turns == kept)
	}
	if len(kept.wds) != 1 {
		t.Errorf("the kept watch holds %d folders, want 1: the removed notes folder's watch stayed", len(kept.wds))
	}
	// Over the disk bound through the kept watch: killed as it writes.
	if r := turn("A", `head -c 2000000 /dev/zero > "$1/big.bin"; sleep 20`); !strings.Contains(string(r.Stderr), "wrote more than") || s.turns != kept {
		t.Fatalf("a turn over the disk bound: exit %d, stderr %q, same watch %v", r.ExitCode, r.Stderr, s.turns == kept)
	}
	engine("A")

	// The folder made again: the old watch is of a folder gone. Something
	// still holds the removed folder (here an open descriptor), so the
	// kernel does not report it gone yet.
	held, err := os.Open(filepath.Join(turns, "A"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := os.RemoveAll(filepath.Join(turns, "A")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(turns, "A"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := turn("A", `true`); r.ExitCode != 0 || s.turns == kept {
		t.Fatalf("turn in a folder made again: %+v, same watch %v", r, s.turns == kept)
	}
	remade := s.turns
	// Another folder: a watch of its own, and the previous one removed.
	if r := turn("B", `true`); r.ExitCode != 0 || s.turns == remade {
		t.Fatalf("turn in another folder: %+v, same watch %v", r, s.turns == remade)
	}
	s.tree.mu.Lock()
	defer s.tree.mu.Unlock()
	for _, w := range s.tree.dirs {
		if w.group == remade || w.group == kept {
			t.Errorf("%s is still watched for a replaced group", w.path)
		}
	}
}

// TestSessionTurnInTheLastTurnsTick plays a turn that starts in the tick
// of the file clock its previous turn ended in, as a fast engine's next
// turn often does: what the previous turn wrote last is stamped in the
// same tick as what this one writes first. The session's watch tells them
// apart: the previous turn's file does not count again, and everything
// this turn wrote counts, in a folder it made too.
func TestSessionTurnInTheLastTurnsTick(t *testing.T) {
	s, bot, replay, turns := newTurnSession(t, BwrapConfig{DiskBytes: 8 << 20})
	if s.tree == nil || s.disk == nil {
		t.Fatal("no inotify watch or no session disk bound on this machine")
	}
	// Every command starts and ends in one tick of the file clock.
	tick := fileClock()
	s.clock = func() unix.Timespec { return tick }
	n := 0
	// turn plays a turn in the one turn folder, shown at the round's path,
	// and returns what the session counted for its round folders.
	turn := func(script string) int64 {
		t.Helper()
		n++
		if r := playTurn(t, s, bot, replay, turns, n, script); r.ExitCode != 0 {
			t.Fatalf("turn %d: %+v", n, r)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.disk.settle()
		return s.disk.rounds
	}
	const size = 900_000
	first := turn(fmt.Sprintf(`head -c %d /dev/zero > "$1/last.bin"`, size))
	if first < size {
		t.Fatalf("turn 1 counted %d bytes, wrote %d", first, size)
	}
	// As if turn 1 ended an hour from now: every change stamped until then
	// may be turn 1's, and only the watch can tell whose it is.
	s.mu.Lock()
	s.lastEndFine = unix.NsecToTimespec(time.Now().Add(time.Hour).UnixNano())
	s.mu.Unlock()
	second := turn(fmt.Sprintf(`head -c %d /dev/zero > "$1/new.bin" && mkdir -p "$1/made/deep" && head -c %d /dev/zero > "$1/made/deep/f.bin"`, size, size))
	// The folders made count their blocks: a few KB each.
	got := second - first
	if got < 2*size || got > 2*size+64<<10 {
		t.Errorf("turn 2 counted %d bytes, wrote %d in two files and two folders: the previous turn's %d bytes counted again, or a file of this turn's missed",
			got, 2*size, size)
	}
}

// newTurnSession starts a session as a match's seat has one: the bot's
// folder, and the replay folder shown a command's own folder at a time.
// turns is an empty host folder, outside both, for the turn folders.
func newTurnSession(t *testing.T, cfg BwrapConfig) (s *Session, bot, replay, turns string) {
	t.Helper()
	caps := Probe(context.Background())
	testenv.Require(t, "an enforced sandbox", caps.Enforced(), caps.String())
	b, err := NewBwrap(cfg)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	bot, replay, turns = filepath.Join(root, "bot"), filepath.Join(root, "replay"), filepath.Join(root, "turns")
	for _, d := range []string{bot, replay, turns} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err = b.NewSession([]Mount{{Source: bot, Writable: true}, {Source: replay, Writable: true, PerCommand: true}},
		Limits{WallTime: testenv.Scaled(30 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, bot, replay, turns
}

// playTurn plays turn n of a session's seat whose turn folder is folder,
// shown at round n's path in replay, which script gets as $1.
func playTurn(t *testing.T, s *Session, bot, replay, folder string, n int, script string) Result {
	t.Helper()
	target := filepath.Join(replay, fmt.Sprintf("round-%d", n), "A")
	r, err := s.Run(context.Background(), Cmd{
		Args:   []string{"/bin/sh", "-c", script, "bot", target},
		Dir:    bot,
		Mounts: []Mount{{Source: folder, Target: target, Writable: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSessionWatchSleepsUntilAChange: while a command changes nothing in
// its folders, its watch checks only when its CPU time, memory or folders
// fall due (about ten times a second) rather than at every tick (fifty);
// a command that writes past the bound after a quiet start wakes it and
// is stopped at once, as before.
func TestSessionWatchSleepsUntilAChange(t *testing.T) {
	testenv.Require(t, "an enforced sandbox", Probe(context.Background()).Enforced(), "")
	b, err := NewBwrap(BwrapConfig{DiskBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	s, dir := newFolderSession(t, b, Limits{WallTime: 20 * time.Second, CPUTime: 2 * time.Second, MemoryBytes: 512 << 20})
	var checks atomic.Int64
	s.wrapDisk = func(check func() string) func() string {
		return func() string {
			checks.Add(1)
			return check()
		}
	}
	r, err := s.Run(context.Background(), Cmd{Args: []string{"/bin/sleep", "1"}})
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("quiet command: %v %+v", err, r)
	}
	// A tick every watchdogPoll would check about 50 times in a second.
	if n := checks.Load(); n > 25 {
		t.Errorf("the watch checked %d times in a second of a command that changed nothing, want 25 at most", n)
	}
	t.Logf("%d checks in a second of quiet", checks.Load())

	r, err = s.Run(context.Background(), Cmd{Args: []string{"/bin/sh", "-c",
		`sleep 0.5; head -c 2097152 /dev/zero > "$0/big"; sleep 10; echo survived`, dir}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Stderr), "wrote more than 1048576 bytes") || strings.Contains(string(r.Stdout), "survived") {
		t.Fatalf("the writer was not stopped by the watch: %+v, stderr %q", r, r.Stderr)
	}
	// Stopped at its write, not at the end of its sleep.
	if r.Wall >= 5*time.Second {
		t.Errorf("stopped after %v, want soon after its write at 0.5 s", r.Wall)
	}
}
