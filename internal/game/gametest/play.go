package gametest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// SystemPythonFirst puts the system python3 first on PATH, for a
// package's TestMain: a version manager's shim in front of it can take
// seconds per start on a loaded machine, and the rule sets start a bot
// afresh for every request.
func SystemPythonFirst() {
	os.Setenv("PATH", "/usr/bin:/bin:"+os.Getenv("PATH"))
}

// Play plays a match of rs with opts, on the host unless opts.Runner is
// set, into a fresh replay folder, and returns the summary and the replay
// file named replayFile decoded as R. A match that cannot be played fails
// the test.
func Play[R any](t *testing.T, rs game.RuleSet, replayFile string, bots []game.Bot, opts game.Options) (*game.Summary, R) {
	t.Helper()
	var r R
	dir := t.TempDir()
	opts.ReplayDir = dir
	if opts.Runner == nil {
		opts.Runner = sandbox.NewHost(sandbox.HostConfig{})
	}
	sum, err := rs.Play(context.Background(), bots, opts)
	if err != nil {
		t.Fatalf("Play: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, replayFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("replay: %v", err)
	}
	return sum, r
}

// PlaySandboxed plays a match of rs as the platform does: each bot a copy
// of its folder, in a bubblewrap session of its own that sees only that
// folder. A command inside a bot's folder is run from the copy. Without
// bubblewrap the test skips, or fails where testenv.RequireAll is set.
func PlaySandboxed(t *testing.T, rs game.RuleSet, bots []game.Bot, opts game.Options) *game.Summary {
	t.Helper()
	ctx := context.Background()
	caps := sandbox.Probe(ctx)
	testenv.Require(t, "bubblewrap", caps.Bwrap, caps.String())
	bw, err := sandbox.NewMatchSandbox(nil)
	if err != nil {
		t.Fatal(err)
	}
	bots = append([]game.Bot(nil), bots...)
	for i := range bots {
		dir := filepath.Join(t.TempDir(), "bot")
		if err := os.CopyFS(dir, os.DirFS(bots[i].Dir)); err != nil {
			t.Fatal(err)
		}
		bots[i].Command = rebase(bots[i].Command, bots[i].Dir, dir)
		bots[i].Dir = dir
		s, err := bw.NewSession([]sandbox.Mount{{Source: dir, Writable: true}}, sandbox.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		bots[i].Runner = s
	}
	sum, err := rs.Play(ctx, bots, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// rebase moves the arguments of cmd that lie in the folder from into the
// folder to.
func rebase(cmd []string, from, to string) []string {
	out := append([]string(nil), cmd...)
	for i, a := range out {
		if rel, err := filepath.Rel(from, a); err == nil && filepath.IsAbs(a) && !strings.HasPrefix(rel, "..") {
			out[i] = filepath.Join(to, rel)
		}
	}
	return out
}
