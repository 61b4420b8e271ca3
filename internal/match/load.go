// Package match plays one match from bot folders: it reads each bot's
// manifest, works out how to launch it, calibrates its language, gives it a
// runner and hands the seats to a rule set. The battleship command and the
// platform's worker both play through it, so a match runs the same on a
// contestant's machine as on the platform.
package match

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game"
)

// Loader prepares seats from bot folders. Its runtime lookups are cached
// for the Loader's life.
type Loader struct {
	Runtimes *botexec.Runtimes
	// Rules are the games a manifest may name, and say how each game's
	// engine starts bots.
	Rules *game.Registry
}

// NewLoader returns a Loader for the games of rules that finds runtimes
// on PATH.
func NewLoader(rules *game.Registry) *Loader {
	return &Loader{Runtimes: botexec.NewRuntimes(), Rules: rules}
}

// LoadBot prepares the seat of the bot in folder dir, for the games of
// rules. It never fails: a problem (no bot.json, unknown game or BotType,
// missing RunFile or runtime) is put in the seat's LoadError, and the rule
// set plays that seat as doing nothing, with the reason in the summary.
func LoadBot(rules *game.Registry, dir string) game.Bot {
	b, _ := NewLoader(rules).Load(dir)
	return b
}

// Load is LoadBot that also returns the manifest (zero when it could not
// be read).
func (l *Loader) Load(dir string) (game.Bot, botmeta.Manifest) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	b := game.Bot{Dir: abs, Name: filepath.Base(abs)}
	m, err := botmeta.Load(abs)
	if err == nil {
		err = m.CheckGame(l.Rules.Names())
	}
	if err != nil {
		b.LoadError = fmt.Errorf("bot folder %s: %w", dir, err)
		return b, botmeta.Manifest{}
	}
	rs, err := l.Rules.Get(m.Game)
	if err != nil {
		b.LoadError = fmt.Errorf("bot folder %s: %w", dir, err)
		return b, botmeta.Manifest{}
	}
	if name := m.DisplayName(); name != "" {
		b.Name = name
	}
	b.Meta = game.BotInfo{Author: m.Author, NickName: m.NickName, Email: m.Email, BotType: m.BotType.String()}
	b.Language = m.BotType.String()
	launch, err := botexec.Command(l.Runtimes, m, abs, rs.Traits())
	if err != nil {
		b.LoadError = fmt.Errorf("bot %s: %w", b.Name, err)
		return b, m
	}
	b.Command, b.TrailingArgs, b.Language = launch.Command, launch.TrailingArgs, launch.Language
	return b, m
}

// LoadBots prepares the seats of several bot folders, in order, and says
// which game their manifests name: the one they agree on, else "" (a
// folder that could not be read does not vote).
func (l *Loader) LoadBots(dirs []string) ([]game.Bot, string) {
	bots := make([]game.Bot, 0, len(dirs))
	games := map[string]bool{}
	for _, d := range dirs {
		b, m := l.Load(d)
		bots = append(bots, b)
		if m.Game != "" {
			games[m.Game] = true
		}
	}
	if len(games) != 1 {
		return bots, ""
	}
	for g := range games {
		return bots, g
	}
	return bots, ""
}

// seatLabel names a seat in errors.
func seatLabel(i int, b game.Bot) string {
	if strings.TrimSpace(b.Name) != "" {
		return fmt.Sprintf("seat %d (%s)", i+1, b.Name)
	}
	return fmt.Sprintf("seat %d", i+1)
}
