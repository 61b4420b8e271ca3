package hitandsunk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// TestPlayInBubblewrap plays a short match with each call confined by
// bubblewrap, as on the platform: the request must arrive as one argument
// and the bot's folder must stay writable between calls.
func TestPlayInBubblewrap(t *testing.T) {
	bw, err := sandbox.NewMatchSandbox(nil)
	testenv.RequireErr(t, "bubblewrap", err)
	script := `echo "$#" >> argv.txt; if [ $# -eq 0 ]; then echo 3; else echo S; fi`
	bots := []game.Bot{shBot(t, "a", script), shBot(t, "b", script)}
	for i := range bots {
		bots[i].Runner = bw
	}
	sum, err := ruleSet{rounds: 3}.Play(t.Context(), bots, game.Options{Seed: 3, ReplayDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bots {
		data, err := os.ReadFile(filepath.Join(b.Dir, "argv.txt"))
		if err != nil {
			t.Fatalf("bot %d wrote nothing in its folder: %v", i, err)
		}
		if got := strings.Join(strings.Fields(string(data)), " "); got != "0 1 1 1" {
			t.Errorf("bot %d argument counts %q, want \"0 1 1 1\"", i, got)
		}
	}
	for _, p := range sum.Players {
		if strings.Contains(p.Log, "failed") {
			t.Errorf("%s: a call failed in the sandbox:\n%s", p.Name, p.Log)
		}
	}
}
