package brainjar

import (
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/gametest"
)

// TestStarterBotsSandboxed plays a game as the platform does: each bot a
// copy of its folder, in a bubblewrap session of its own that sees only that
// folder.
func TestStarterBotsSandboxed(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game in the sandbox")
	}
	sum := gametest.PlaySandboxed(t, New(), []game.Bot{starter(t), starter(t)}, game.Options{Seed: 3})
	if sum.Winner == nil || sum.Rounds < 14 {
		t.Fatalf("summary %+v", sum)
	}
	for _, p := range sum.Players {
		if p.Reason != "" && p.Reason != "all ships sunk" {
			t.Errorf("player %s: %q\n%.2000s", p.Key, p.Reason, p.Log)
		}
	}
}
