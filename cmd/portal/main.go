// Command portal serves the Broadside web portal and its JSON API.
//
//	portal                   serve on $ADDR
//	portal migrate           bring the database up to date
//	portal seed-house-bots   upload the starter bots under ./bots as house bots
//	portal make-organiser U  give the account U the organiser role
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

	"github.com/broadside/broadside/internal/config"
)

const usage = `Usage: portal [command]

Commands:
  (none)                  serve the portal on $ADDR
  migrate                 apply the database migrations (the platform's and the job queue's)
  seed-house-bots [DIR]   upload every starter bot folder under DIR (default ./bots) as a house bot;
                          running it again uploads only bots whose files changed
  make-organiser USERNAME give an account the organiser role (create battles, use /admin)

`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run is the whole command, with its environment passed in for tests.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	if cmd == "-h" || cmd == "--help" || cmd == "help" {
		fmt.Fprint(stdout, usage+config.Help(config.Portal))
		return 0
	}
	env := config.NewEnv(config.Portal, getenv)
	if cmd == "migrate" || cmd == "make-organiser" {
		// They touch the database only; an operator running them by hand
		// after `make run` has no BLOB_URL in their shell.
		env.NotRequired("BLOB_URL")
	}
	cfg, err := readConfig(env)
	if err != nil {
		fmt.Fprintf(stderr, "portal: configuration:\n%v\n\nRun portal --help for the settings.\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	switch cmd {
	case "":
		err = serve(ctx, cfg, logger)
	case "migrate":
		err = migrate(ctx, cfg, logger)
	case "seed-house-bots":
		dir := "bots"
		if len(args) > 1 {
			dir = args[1]
		}
		err = seedHouseBots(ctx, cfg, logger, dir, stdout)
	case "make-organiser":
		name := ""
		if len(args) > 1 {
			name = args[1]
		}
		err = makeOrganiser(ctx, cfg, logger, name, stdout)
	default:
		fmt.Fprintf(stderr, "portal: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if err != nil {
		logger.Error("portal stopped", "command", cmd, "err", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, cfg Config, logger *slog.Logger) error {
	m := NewMain(cfg, logger)
	if err := m.Run(ctx); err != nil {
		return errors.Join(err, m.Close())
	}
	logger.Info("portal listening", "addr", m.Addr())
	<-ctx.Done()
	logger.Info("portal shutting down")
	return m.Close()
}
