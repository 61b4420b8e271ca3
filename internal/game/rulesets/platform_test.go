package rulesets

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/broadside/broadside/internal/command"
	"github.com/broadside/broadside/internal/game"
)

// refusingRunner is a machine that cannot start any bot, as a sandbox that
// cannot show a bot's interpreter.
type refusingRunner struct{}

var errRefused = fmt.Errorf("sandbox: python3 is not visible in the sandbox: %w", command.ErrPlatform)

func (refusingRunner) Run(context.Context, command.Cmd) (command.Result, error) {
	return command.Result{}, errRefused
}

func (refusingRunner) Start(context.Context, command.Cmd) (command.Process, error) {
	return nil, errRefused
}

// TestPlatformFailureEndsTheMatch checks that, in every rule set, a bot the
// platform cannot start fails the match with the reason instead of
// forfeiting: the fault is the machine's, not the bot's.
func TestPlatformFailureEndsTheMatch(t *testing.T) {
	r := Registry()
	for _, name := range r.Names() {
		t.Run(name, func(t *testing.T) {
			rs, err := r.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			min, _ := rs.Seats()
			bots := make([]game.Bot, min)
			for i := range bots {
				bots[i] = game.Bot{Name: fmt.Sprintf("bot%d", i), Dir: t.TempDir(), Command: []string{"python3", "bot.py"}}
			}
			sum, err := rs.Play(context.Background(), bots, game.Options{Seed: 1, ReplayDir: t.TempDir(), Runner: refusingRunner{}})
			if !errors.Is(err, command.ErrPlatform) {
				t.Fatalf("Play = %+v, %v; want an error wrapping command.ErrPlatform", sum, err)
			}
		})
	}
}
