package hitandsunk

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/game"
)

// TestConsolePlayer plays a human at a terminal against a scripted bot: the
// human picks a Destroyer, scans once, then input runs out and every later
// turn is a wait.
func TestConsolePlayer(t *testing.T) {
	var out bytes.Buffer
	human := game.Bot{Name: "human", Console: &game.Console{In: strings.NewReader("1\nS\n"), Out: &out}}
	bot := shBot(t, "bot", `if [ $# -eq 0 ]; then echo 4; else echo W; echo "thinking hard" >&2; fi`)
	var pretty bytes.Buffer
	// Debug halts after each turn the bot wrote to stderr, not after its
	// ship choice, where it wrote nothing there.
	halts := 0
	halt := func(ctx context.Context) error {
		halts++
		return ctx.Err()
	}
	opts := game.Options{Seed: 5, Runner: hostRunner(), Pretty: &pretty, Debug: true, Halt: halt}
	_, err := ruleSet{rounds: 3}.Play(context.Background(), []game.Bot{human, bot}, opts)
	if err != nil {
		t.Fatal(err)
	}
	shown := out.String()
	for _, want := range []string{"Choose your ship", "Round 1, you are ship 0, a Destroyer", "Actions ("} {
		if !strings.Contains(shown, want) {
			t.Errorf("console output lacks %q:\n%s", want, shown)
		}
	}
	// The second turn's map follows the scan: no cell is out of sight.
	rounds := strings.Split(shown, "Round 2,")
	if len(rounds) != 2 || strings.Contains(strings.SplitN(rounds[1], "Actions", 2)[0], "U") {
		t.Errorf("the map after a scan still hides cells:\n%s", shown)
	}
	if got := strings.Count(pretty.String(), "Round "); got != 3 {
		t.Errorf("pretty drew %d rounds, want 3", got)
	}
	if got := strings.Count(pretty.String(), "Bot bot wrote to stderr:\nthinking hard"); got != 3 {
		t.Errorf("debug showed the bot's stderr %d times, want 3", got)
	}
	if halts != 3 {
		t.Errorf("debug halted %d times, want 3", halts)
	}
}
