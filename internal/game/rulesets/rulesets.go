// Package rulesets lists every rule set the platform hosts.
package rulesets

import (
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/brainjar"
	"github.com/broadside/broadside/internal/game/deepship"
	"github.com/broadside/broadside/internal/game/entelect"
	"github.com/broadside/broadside/internal/game/hitandsunk"
)

// Registry returns a registry of every hosted rule set. Each rule set
// package adds its own line here once it plays.
func Registry() *game.Registry {
	return game.NewRegistry(
		brainjar.New(),
		deepship.New(),
		entelect.New(),
		hitandsunk.New(),
	)
}
