// Command battleship plays one match between bots on this machine, with the
// original Entelect 2017 engine's flags and no database. It is the same
// match runner the platform's worker uses. Its subcommands view replays
// and, through the portal's API, submit bots and fetch matches and replays.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/rulesets"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, rulesets.Registry(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitPlayed = 0
	exitFailed = 1
	exitUsage  = 2
)

// run is the whole command, for the games of rules; it returns the exit
// status.
func run(ctx context.Context, rules *game.Registry, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "view" {
		return viewCommand(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "duel" {
		return duelCommand(ctx, rules, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "repro" {
		return reproCommand(ctx, rules, args[1:], stdout, stderr)
	}
	if len(args) > 0 {
		if cmd, ok := clientCommands[args[0]]; ok {
			return cmd(ctx, clientEnv{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, rules: rules}, args[1:])
		}
	}
	c, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "battleship: %v\n\n%s", err, usage)
		return exitUsage
	}
	if c.help {
		fmt.Fprint(stdout, usage)
		return exitPlayed
	}
	level := slog.LevelWarn
	if c.debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if err := play(ctx, rules, c, stdin, stdout, stderr, log); err != nil {
		fmt.Fprintf(stderr, "battleship: %v\n", err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		return exitFailed
	}
	return exitPlayed
}
