// Command worker runs the platform's background jobs: bot builds and
// matches, from the River queue in Postgres. See docs/operations.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage())
		return 0
	case "probe":
		// Needs no database: an operator's first check of a new machine.
		return probe(ctx, stdout, stderr)
	case "", "migrate", "recompute-ratings":
	default:
		fmt.Fprintf(stderr, "worker: unknown command %q\n\n%s", cmd, usage())
		return 2
	}
	cfg, err := parseConfig(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "worker: configuration:\n%v\n\nRun worker --help for the settings.\n", err)
		return 2
	}
	switch cmd {
	case "migrate":
		err = migrate(ctx, cfg, stdout)
	case "recompute-ratings":
		write := len(args) > 1 && args[1] == "--write"
		err = recompute(ctx, cfg, write, stdout)
	default:
		err = serve(ctx, cfg, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "worker: %v\n", err)
		return 1
	}
	return 0
}
