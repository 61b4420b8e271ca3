package deepship

import (
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/gametest"
)

// TestStarterBotsSandboxed plays a round as the platform does: each bot a
// copy of its folder, in a bubblewrap session of its own that sees only that
// folder.
func TestStarterBotsSandboxed(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a round in the sandbox")
	}
	sum := gametest.PlaySandboxed(t, New(), []game.Bot{starter(t), starter(t)}, game.Options{Seed: 3, NoLimit: true})
	if sum.Winner == nil || sum.Rounds < 3*17 {
		t.Fatalf("summary %+v", sum)
	}
	for _, p := range sum.Players {
		if p.Reason != "" && p.Reason != "won 1 of 3 games, 0 penalty points" {
			t.Errorf("player %s: %q\n%.2000s", p.Key, p.Reason, p.Log)
		}
	}
}
