package deepship

import (
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/gametest"
)

// TestDebugHalts: every process that wrote to stderr has it shown when it
// ends (at a restart or the round's end) and then halts, in debug mode
// only. The scripted bots log every message to stderr; "crash" is
// restarted once, so three processes end in all.
func TestDebugHalts(t *testing.T) {
	gametest.DebugHalts(t, 3, func(t *testing.T, opts game.Options) *game.Summary {
		opts.Seed = 2
		sum, _ := playOpts(t, []game.Bot{scripted(t, "plain"), scripted(t, "crash")}, opts)
		return sum
	})
}
