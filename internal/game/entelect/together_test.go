package entelect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// meetingRunner runs commands as mountingHost does; its first command
// waits for a second one to start (or gives up after wait), which shows
// whether the two bots of a round run at once.
type meetingRunner struct {
	mountingHost
	once, second sync.Once
	arrived      chan struct{}
	wait         time.Duration
	met          bool
	mu           sync.Mutex
	mounts       []sandbox.Mount // every command's, in order
	args         [][]string
}

func (r *meetingRunner) Run(ctx context.Context, c sandbox.Cmd) (sandbox.Result, error) {
	first := false
	r.once.Do(func() { first = true })
	if first {
		select {
		case <-r.arrived:
			r.met = true
		case <-time.After(r.wait):
		}
	} else {
		r.second.Do(func() { close(r.arrived) })
	}
	r.mu.Lock()
	r.mounts = append(r.mounts, c.Mounts...)
	r.args = append(r.args, c.Args)
	r.mu.Unlock()
	return r.mountingHost.Run(ctx, c)
}

// TestPlayConfinedTurnsRunTogether: with each turn confined to its own
// folder the two bots of a round run at once, and the match is the same as
// when they run one after the other.
func TestPlayConfinedTurnsRunTogether(t *testing.T) {
	var replayDir string
	play := func(confined bool) (*game.Summary, *meetingRunner) {
		// Bots run at once start within moments of each other: the
		// confined match waits long, as it only waits that long when the
		// test fails; the match played in turn always waits it out.
		wait := 2 * time.Second
		if confined {
			wait = 10 * time.Second
		}
		r := &meetingRunner{mountingHost: mountingHost{sandbox.NewHost(sandbox.HostConfig{})}, arrived: make(chan struct{}), wait: wait}
		replayDir = filepath.Join(t.TempDir(), "replay")
		opts := game.Options{Seed: 11, Size: 1, ReplayDir: replayDir, Tournament: true,
			ConfinedTurns: confined, Runner: r}
		sum, err := New().Play(context.Background(), []game.Bot{scriptBot(t, "sweep"), scriptBot(t, "sweep", "reverse")}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sum.Players {
			sum.Players[i].Log = "" // timestamps
		}
		return sum, r
	}
	together, r := play(true)
	if !r.met {
		t.Error("the bots of a round ran one after the other")
	}
	// Each seat's turns use one folder on the host, shown to the bot at
	// the round folder's path, which it gets as its argument; the folder
	// is gone after the match.
	for i, m := range r.mounts {
		key := filepath.Base(m.Target)
		if want := filepath.Join(replayDir, turnsFolder, key); m.Source != want || !m.Writable {
			t.Errorf("command %d mounts %+v, want the writable turn folder %s", i, m, want)
		}
		if !strings.HasPrefix(filepath.Base(filepath.Dir(m.Target)), "Phase ") || filepath.Dir(filepath.Dir(m.Target)) != replayDir {
			t.Errorf("command %d shows its folder at %s, want a round folder of %s", i, m.Target, replayDir)
		}
		if a := r.args[i]; !slices.Contains(a, m.Target) {
			t.Errorf("command %d has arguments %q, want the round folder %s among them", i, a, m.Target)
		}
	}
	if len(r.mounts) < 4 {
		t.Errorf("%d mounts over the match, want one a turn", len(r.mounts))
	}
	if _, err := os.Lstat(filepath.Join(replayDir, turnsFolder)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the turn folders are left after the match: %v", err)
	}
	inTurn, r := play(false)
	if r.met {
		t.Error("unconfined bots ran at once: one could read the other's folder")
	}
	if !reflect.DeepEqual(together, inTurn) {
		t.Errorf("the match differs when the bots run at once:\n%+v\n%+v", together, inTurn)
	}
}

// mountingHost runs commands on the host and shows each mount at its
// target, as a confining runner does, with a symbolic link there while
// the command runs.
type mountingHost struct{ *sandbox.Host }

func (r mountingHost) Run(ctx context.Context, c sandbox.Cmd) (sandbox.Result, error) {
	for _, m := range c.Mounts {
		if m.Target == "" || m.Target == m.Source {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(m.Target), 0o755); err != nil {
			return sandbox.Result{}, err
		}
		if err := os.Symlink(m.Source, m.Target); err != nil {
			return sandbox.Result{}, err
		}
		defer os.Remove(m.Target)
	}
	return r.Host.Run(ctx, c)
}

// TestTurnFolderFreshEveryRound: a seat's turn folder is the same host
// folder every round, yet each turn finds in it only what the engine
// wrote, whatever the bot left there the round before, and the replay
// keeps what it left in that round's folder.
func TestTurnFolderFreshEveryRound(t *testing.T) {
	replayDir := filepath.Join(t.TempDir(), "replay")
	opts := game.Options{Seed: 3, Size: 1, ReplayDir: replayDir, Tournament: true, ConfinedTurns: true,
		Runner: mountingHost{sandbox.NewHost(sandbox.HostConfig{})}}
	sum, err := New().Play(context.Background(), []game.Bot{scriptBot(t, "litter"), scriptBot(t, "sweep", "reverse")}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rounds < 3 {
		t.Fatalf("%d rounds, want several", sum.Rounds)
	}
	logs, err := filepath.Glob(filepath.Join(replayDir, "Phase *", "A", "log.txt"))
	if err != nil || len(logs) < 3 {
		t.Fatalf("%d round logs of A (%v)", len(logs), err)
	}
	checked := 0
	for _, p := range logs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "seen: map.txt state.json\n") {
			t.Errorf("%s: the bot found more than the engine's files in its folder:\n%s", p, data)
		}
		if !strings.Contains(string(data), "not regular files were left out of the replay") {
			t.Errorf("%s: no note of the folder and link left out:\n%s", p, data)
		}
		note := filepath.Join(filepath.Dir(p), "note.txt")
		if _, err := os.Stat(note); err != nil && !strings.Contains(p, "Phase 1") {
			t.Errorf("the round's note is not in the replay: %v", err)
		}
		// The replay keeps state.json as the bot left it, a line longer
		// than the engine wrote it (but for the last round's, which the
		// match's end writes again).
		kept, err := os.ReadFile(filepath.Join(filepath.Dir(p), "state.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(kept, []byte("junk\n")) {
			continue
		}
		if want := fmt.Sprintf("state.json: %d bytes\n", len(kept)-len("junk\n")); !strings.Contains(string(data), want) {
			t.Errorf("%s: the bot did not find the engine's state.json (%q):\n%s", p, want, data)
		}
		checked++
	}
	if checked < 2 {
		t.Errorf("the bot's state.json was checked in %d rounds, want all but the last", checked)
	}
	if _, err := os.Lstat(filepath.Join(replayDir, turnsFolder)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the turn folders are left after the match: %v", err)
	}
}
