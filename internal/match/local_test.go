package match

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// TestReplayFolder checks that a given folder is made absolute and that
// the default folder of a seed gets a suffix when taken.
func TestReplayFolder(t *testing.T) {
	t.Chdir(t.TempDir())
	got, err := ReplayFolder("out", 7)
	if want, _ := filepath.Abs("out"); err != nil || got != want {
		t.Fatalf("ReplayFolder(out) = %q, %v; want %q", got, err, want)
	}
	first, err := ReplayFolder("", 7)
	if err != nil || filepath.Base(first) != "7" {
		t.Fatalf("ReplayFolder = %q, %v; want Replays/7", first, err)
	}
	if err := os.MkdirAll(first, 0o755); err != nil {
		t.Fatal(err)
	}
	if second, err := ReplayFolder("", 7); err != nil || second != first+"-2" {
		t.Fatalf("ReplayFolder with Replays/7 taken = %q, %v; want %q", second, err, first+"-2")
	}
}

// TestWriteBotLogs checks that each seat's log lands in <key>/log.txt, a
// key that is no plain name by its seat's number, and nothing when the
// rule set writes them itself.
func TestWriteBotLogs(t *testing.T) {
	sum := &game.Summary{Players: []game.PlayerSummary{{Key: "A", Log: "a"}, {Key: "../x", Log: "b"}}}
	dir := t.TempDir()
	if err := WriteBotLogs(game.Traits{}, dir, sum); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"A": "a", "1": "b"} {
		if got, err := os.ReadFile(filepath.Join(dir, key, "log.txt")); err != nil || string(got) != want {
			t.Errorf("%s/log.txt = %q, %v; want %q", key, got, err, want)
		}
	}
	own := t.TempDir()
	if err := WriteBotLogs(game.Traits{WritesBotLogs: true}, own, sum); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(own); len(entries) != 0 {
		t.Errorf("wrote %d entries for a rule set that writes its own logs", len(entries))
	}
}

// guarded marks a runner wrapped by Sandbox's guard.
type guarded struct{ sandbox.Runner }

// TestSandboxHost checks that on the host every seat plays through the
// guarded runner, with no session per seat.
func TestSandboxHost(t *testing.T) {
	host := sandbox.NewHost(sandbox.HostConfig{})
	var m Match
	m.Sandbox(host, sandbox.Limits{}, func(r sandbox.Runner) sandbox.Runner { return guarded{r} })
	g, ok := m.Options.Runner.(guarded)
	if !ok || g.Runner != host || m.SeatRunner != nil || m.Options.ConfinedTurns {
		t.Fatalf("Sandbox(host) = runner %T, seat runner set %v, confined %v", m.Options.Runner, m.SeatRunner != nil, m.Options.ConfinedTurns)
	}
}
