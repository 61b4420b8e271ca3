package brainjar

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// TestStarterBotsSandboxed plays a game as the platform does: each bot a
// copy of its folder, in a bubblewrap session of its own that sees only that
// folder.
func TestStarterBotsSandboxed(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game in the sandbox")
	}
	ctx := context.Background()
	caps := sandbox.Probe(ctx)
	testenv.Require(t, "bubblewrap", caps.Bwrap, caps.String())
	bw, err := sandbox.NewBwrap(sandbox.BwrapConfig{})
	if err != nil {
		t.Fatal(err)
	}
	bots := []game.Bot{starter(t), starter(t)}
	for i := range bots {
		dir := filepath.Join(t.TempDir(), "bot")
		if err := os.CopyFS(dir, os.DirFS(bots[i].Dir)); err != nil {
			t.Fatal(err)
		}
		bots[i].Dir = dir
		s, err := bw.NewSession([]sandbox.Mount{{Source: dir, Writable: true}}, sandbox.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		bots[i].Runner = s
	}
	sum, err := New().Play(ctx, bots, game.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Winner == nil || sum.Rounds < 14 {
		t.Fatalf("summary %+v", sum)
	}
	for _, p := range sum.Players {
		if p.Reason != "" && p.Reason != "all ships sunk" {
			t.Errorf("player %s: %q\n%.2000s", p.Key, p.Reason, p.Log)
		}
	}
}
