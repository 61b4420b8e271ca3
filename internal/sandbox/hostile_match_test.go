//go:build linux

package sandbox_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/entelect"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// matchLimits are what the platform gives each bot's session besides the
// engine's own wall time and output cap.
var matchLimits = sandbox.Limits{
	MemoryBytes:   128 << 20,
	Processes:     64,
	FileSizeBytes: 16 << 20,
	OpenFiles:     256,
}

// hostileMatch is one Entelect match of a hostile bot (seat A) against the
// Python starter bot (seat B), each in its own session as on the platform.
type hostileMatch struct {
	root, hostile, good, replay string
	marker, secret              string
	accepted                    atomic.Int64
}

func newHostileMatch(t *testing.T, name, secret string) *hostileMatch {
	t.Helper()
	root := t.TempDir()
	m := &hostileMatch{
		root:    root,
		hostile: filepath.Join(root, "hostile"),
		good:    filepath.Join(root, "good"),
		replay:  filepath.Join(root, "replay"),
		marker:  fmt.Sprintf("broadside-match-%s-%d", name, time.Now().UnixNano()),
		secret:  secret,
	}
	// Per-match copies of both bots, as the worker makes them.
	if err := os.CopyFS(m.hostile, os.DirFS(filepath.Join("testdata", "hostile", name))); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(m.good, os.DirFS(filepath.Join("..", "..", "bots", "entelect-python3"))); err != nil {
		t.Fatal(err)
	}
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
			m.accepted.Add(1)
			c.Close()
		}
	}()
	files := map[string]string{
		filepath.Join(m.hostile, "port.txt"):          fmt.Sprint(ln.Addr().(*net.TCPAddr).Port),
		filepath.Join(m.hostile, "opponent_path.txt"): m.good,
		filepath.Join(m.hostile, "marker_name.txt"):   m.marker,
		filepath.Join(m.good, "state.json"):           m.secret,
	}
	for p, data := range files {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// command is the hostile bot's launch command, compiled when it is C.
func (m *hostileMatch) command(t *testing.T) []string {
	t.Helper()
	has := func(f string) bool { _, err := os.Stat(filepath.Join(m.hostile, f)); return err == nil }
	switch {
	case has("bot.c"):
		inc, _ := filepath.Abs(filepath.Join("testdata", "hostile"))
		out, err := exec.Command("cc", "-O1", "-pthread", "-I", inc, "-o", filepath.Join(m.hostile, "bot"), filepath.Join(m.hostile, "bot.c")).CombinedOutput()
		if err != nil {
			t.Fatalf("compile: %v\n%s", err, out)
		}
		return []string{filepath.Join(m.hostile, "bot")}
	case has("bot.sh"):
		return []string{"/bin/sh", "bot.sh"}
	case has("bot.py"):
		return []string{"python3", "bot.py"}
	}
	t.Fatalf("no bot program in %s", m.hostile)
	return nil
}

// play runs the match with one session per bot and closes them.
func (m *hostileMatch) play(t *testing.T, b *sandbox.Bwrap, hostileCmd []string) *game.Summary {
	t.Helper()
	bots := []game.Bot{
		{Key: "A", Name: "hostile", Dir: m.hostile, Command: hostileCmd, Language: "hostile"},
		{Key: "B", Name: "good", Dir: m.good, Command: []string{"python3", "bot.py"}, Language: "Python3"},
	}
	for i := range bots {
		s, err := b.NewSession([]sandbox.Mount{{Source: bots[i].Dir, Writable: true},
			{Source: m.replay, Writable: true, PerCommand: true}}, matchLimits)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		bots[i].Runner = s
		if i == 1 {
			// The good bot's turns all run in its session.
			defer func() {
				if st := s.Stats(); st.Commands < 2 || st.Fresh != 0 {
					t.Errorf("the good bot's session: %+v, want every turn in the session", st)
				}
			}()
		}
	}
	if err := os.MkdirAll(m.replay, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sum, err := entelect.New().Play(ctx, bots, game.Options{Seed: 7, Size: 1, ReplayDir: m.replay, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("the match could not be played: %v", err)
	}
	return sum
}

// checkHost asserts that nothing of the host or the good bot was touched
// and nothing of the hostile bot still runs.
func (m *hostileMatch) checkHost(t *testing.T) {
	t.Helper()
	_ = filepath.WalkDir(m.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "loot.txt" {
			return nil
		}
		loot, _ := os.ReadFile(p)
		if bytes.Contains(loot, []byte("PWNED")) || bytes.Contains(loot, []byte(m.secret)) {
			t.Errorf("%s:\n%s", p, loot)
		}
		return nil
	})
	if n := m.accepted.Load(); n != 0 {
		t.Errorf("the host listener accepted %d connections", n)
	}
	for _, d := range []string{"/tmp", "/work", "/root", "/", "/var/tmp", "/dev/shm", m.good} {
		if _, err := os.Stat(filepath.Join(d, m.marker)); err == nil {
			t.Errorf("the bot wrote %s", filepath.Join(d, m.marker))
			os.Remove(filepath.Join(d, m.marker))
		}
	}
	if b, err := os.ReadFile(filepath.Join(m.good, "state.json")); err != nil || string(b) != m.secret {
		t.Errorf("the good bot's folder changed: %q %v", b, err)
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(m.root)) {
			t.Errorf("process %s left after the match: %q", e.Name(), cmdline)
		}
	}
}

// TestHostileMatches plays every hostile bot through the Entelect engine
// against the Python starter bot: the match completes, the good bot wins
// with all its turns played, the hostile bot's failures are in its log,
// and the host is untouched.
func TestHostileMatches(t *testing.T) {
	testenv.RequireErr(t, "an enforced sandbox", sandbox.Require(sandbox.Probe(context.Background())))
	b, err := sandbox.NewBwrap(sandbox.BwrapConfig{})
	if err != nil {
		t.Fatal(err)
	}
	// The worker's secret, also the good bot's: no bot may learn it.
	secret := fmt.Sprintf("worker-secret-%d", time.Now().UnixNano())
	t.Setenv("BROADSIDE_WORKER_SECRET", secret)
	entries, err := os.ReadDir(filepath.Join("testdata", "hostile"))
	if err != nil {
		t.Fatal(err)
	}
	// Builds are played by TestHostileBuilds.
	skip := map[string]bool{"well_behaved": true, "make_build": true, "npm_postinstall": true}
	// What the hostile bot's own log must say, where its turn was cut short.
	wantLog := map[string]string{
		"sleep_forever": "killed after",
		"fork_bomb":     "killed after",
		"memory_hog":    "memory limit exceeded",
		// Each turn within the per-turn bound, together over the match's.
		"slow_disk_filler": "over the session",
	}
	played := 0
	for _, e := range entries {
		if !e.IsDir() || skip[e.Name()] {
			continue
		}
		name := e.Name()
		played++
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := newHostileMatch(t, name, secret)
			sum := m.play(t, b, m.command(t))
			hostile, good := sum.Players[0], sum.Players[1]
			if sum.Winner == nil || *sum.Winner != "B" {
				t.Errorf("winner %v, want the good bot B; A: %q, B: %q", sum.Winner, hostile.Reason, good.Reason)
			}
			if hostile.Reason == "" || hostile.Log == "" {
				t.Errorf("the hostile bot's loss has no reason (%q) or log:\n%s", hostile.Reason, tail(hostile.Log))
			}
			if want := wantLog[name]; want != "" && !strings.Contains(hostile.Log, want) {
				t.Errorf("hostile bot's log lacks %q:\n%s", want, tail(hostile.Log))
			}
			for _, bad := range []string{"killed after", "could not be started", "ended badly", "over its budget", "doing nothing"} {
				if strings.Contains(good.Log, bad) {
					t.Errorf("the good bot was affected (%q):\n%s", bad, tail(good.Log))
				}
			}
			m.checkHost(t)
		})
	}
	if played < 20 {
		t.Errorf("only %d hostile bots played; the suite needs at least 20", played)
	}
}

// tail is the end of a long log, enough to see why.
func tail(s string) string {
	const n = 3000
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
