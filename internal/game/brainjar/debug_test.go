package brainjar

import (
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/gametest"
)

// TestDebugHalts: every request whose stderr is not empty is shown and then
// halts, in debug mode only.
func TestDebugHalts(t *testing.T) {
	gametest.DebugHalts(t, 2, func(t *testing.T, opts game.Options) *game.Summary {
		opts.Seed = 4
		sum, _ := playOpts(t, []game.Bot{scripted(t, "refire"), scripted(t, "stderr")}, opts)
		return sum
	})
}
