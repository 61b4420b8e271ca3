// Command soak runs a season unattended under faults and checks that it
// held: a private PostgreSQL, the portal and two workers as real
// processes; contestants registered through the portal with starter bots
// in all four games; a clan with challenges; an 8-bot battle that starts by
// itself. While it plays it kills a worker with SIGKILL at intervals (and
// starts a new one), restarts PostgreSQL once and feeds the portal bad
// uploads. At the end it checks the season's invariants, prints them as a
// table and exits non-zero if any failed.
//
//	SOAK_MINUTES=10 go run ./scripts/soak   (or: make soak)
//
// It is run from the repository's root; see docs/operations.md.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// settings are the soak's knobs, from the environment.
type settings struct {
	minutes     float64       // SOAK_MINUTES: how long faults are injected
	killEvery   time.Duration // SOAK_KILL_EVERY
	drain       time.Duration // SOAK_DRAIN: longest wait for the season to settle afterwards
	contestants int           // SOAK_CONTESTANTS
	dir         string        // SOAK_DIR: binaries, logs, data
	pgPort      int           // SOAK_PG_PORT
}

func readSettings() (settings, error) {
	s := settings{minutes: 10, killEvery: 2 * time.Minute, drain: 8 * time.Minute, contestants: 4,
		dir: "data/soak", pgPort: 54331}
	var err error
	if v := os.Getenv("SOAK_MINUTES"); v != "" {
		if s.minutes, err = strconv.ParseFloat(v, 64); err != nil || s.minutes <= 0 {
			return s, fmt.Errorf("SOAK_MINUTES must be a positive number, got %q", v)
		}
	}
	for name, d := range map[string]*time.Duration{"SOAK_KILL_EVERY": &s.killEvery, "SOAK_DRAIN": &s.drain} {
		if v := os.Getenv(name); v != "" {
			if *d, err = time.ParseDuration(v); err != nil || *d <= 0 {
				return s, fmt.Errorf("%s must be a duration such as 2m, got %q", name, v)
			}
		}
	}
	if v := os.Getenv("SOAK_CONTESTANTS"); v != "" {
		if s.contestants, err = strconv.Atoi(v); err != nil || s.contestants < 2 {
			return s, fmt.Errorf("SOAK_CONTESTANTS must be at least 2, got %q", v)
		}
	}
	if v := os.Getenv("SOAK_DIR"); v != "" {
		s.dir = v
	}
	if v := os.Getenv("SOAK_PG_PORT"); v != "" {
		if s.pgPort, err = strconv.Atoi(v); err != nil {
			return s, fmt.Errorf("SOAK_PG_PORT must be a port number, got %q", v)
		}
	}
	s.dir, err = filepath.Abs(s.dir)
	return s, err
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	s, err := readSettings()
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	ok, err := run(ctx, s, log, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// run plays the season and reports whether every invariant held.
func run(ctx context.Context, s settings, log *slog.Logger, out io.Writer) (bool, error) {
	p, err := startPlatform(ctx, s, log)
	if err != nil {
		return false, err
	}
	defer p.close()

	season, err := openSeason(ctx, p, s, log)
	if err != nil {
		return false, err
	}
	rec := newRecorder(p)
	go rec.sample(ctx)

	// Faults, for SOAK_MINUTES.
	end := time.Now().Add(time.Duration(s.minutes * float64(time.Minute)))
	log.Info("soak: playing with faults", "until", end.Format(time.TimeOnly))
	if err := p.faults(ctx, s, end, season, rec); err != nil {
		return false, err
	}

	// Then the season must settle by itself: the battle ends, every match
	// created so far ends, every bot has played ranked games.
	drainFrom := time.Now()
	log.Info("soak: faults over, waiting for the season to settle", "at most", s.drain)
	settled := season.waitSettled(ctx, drainFrom, s.drain)
	rec.stop()
	if ctx.Err() != nil {
		return false, fmt.Errorf("interrupted: %w", ctx.Err())
	}

	checks := season.check(ctx, rec, drainFrom, settled)
	printTable(out, checks, season.figures(ctx), rec, s)
	return allPassed(checks), nil
}
