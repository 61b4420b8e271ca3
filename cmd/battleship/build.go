package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/build"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/match"
	"github.com/broadside/broadside/internal/sandbox"
)

// errBuild marks a bot whose build failed; its log says why.
var errBuild = errors.New("build failed")

// buildBots is -f: it builds every bot folder in place, per its manifest,
// with the platform's own build (the worker's), through runner, and prints
// each build log on w. Folders without a readable manifest of a game of
// the loader's are left to the match, which reports them.
func buildBots(ctx context.Context, dirs []string, runner sandbox.Runner, sandboxed bool, loader *match.Loader, w io.Writer) error {
	b := build.New(runner, loader.Rules)
	b.Runtimes = loader.Runtimes
	// The downloads' fresh folders go to the system's temporary folder,
	// not beside the contestant's own bot folders.
	b.TempDir = os.TempDir()
	if !sandboxed {
		// The contestant's own Go build cache, as their go build uses:
		// a Go bot then builds in a second, not in the ten or more a
		// fresh cache takes to compile the standard library.
		b.GoCache = userGoCache()
	}
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("bot folder %s: %w", dir, err)
		}
		m, err := botmeta.Load(abs)
		if err != nil || m.CheckGame(loader.Rules.Names()) != nil {
			continue
		}
		fmt.Fprintf(w, "=== Building %s\n", dir)
		res, err := b.Build(ctx, abs, m)
		if err != nil {
			return fmt.Errorf("build %s: %w", dir, err)
		}
		fmt.Fprint(w, res.Log)
		if !res.OK {
			return fmt.Errorf("%w for %s (see its log above)", errBuild, dir)
		}
	}
	return nil
}

// userGoCache is the Go build cache the user's go command uses: GOCACHE,
// else go-build in the user's cache folder; "" when there is neither.
func userGoCache() string {
	if d := os.Getenv("GOCACHE"); filepath.IsAbs(d) {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "go-build")
	}
	return ""
}

// warnLoadErrors prints one line per seat that cannot play. A missing
// RunFile, the usual sign of a bot never built, says how to build it.
func warnLoadErrors(w io.Writer, bots []game.Bot) {
	for _, b := range bots {
		switch {
		case b.LoadError == nil:
		case errors.Is(b.LoadError, botexec.ErrRunFileMissing):
			fmt.Fprintf(w, "battleship: warning: %v; pass -f to build it before the match (it plays as doing nothing)\n", b.LoadError)
		default:
			fmt.Fprintf(w, "battleship: warning: %v (the bot plays as doing nothing)\n", b.LoadError)
		}
	}
}
