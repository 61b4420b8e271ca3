package main

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// Config is the worker's configuration, read from the environment once.
type Config struct {
	DatabaseURL      string
	BlobURL          string
	MatchConcurrency int
	BuildConcurrency int
	Sandbox          string
	MetricsAddr      string
	LogLevel         slog.Level
	WorkDir          string
	MatchTimeout     time.Duration
	BuildTimeout     time.Duration
	RescueAfter      time.Duration
	ShutdownGrace    time.Duration
	// BattleEvery and LadderEvery pace the competition's periodic jobs;
	// a zero LadderEvery turns the ladder's matchmaking off.
	BattleEvery time.Duration
	LadderEvery time.Duration
	LadderSlots int
	// HeartbeatEvery paces the worker's sign of life; a worker silent for
	// DeadAfter is taken for dead and its running jobs run again elsewhere.
	HeartbeatEvery time.Duration
	DeadAfter      time.Duration
	// BuildEnv is added to the environment of build steps that download
	// dependencies (package mirrors).
	BuildEnv []string
}

// envVar documents one setting for --help.
type envVar struct {
	name, def, help string
}

var envVars = []envVar{
	{"DATABASE_URL", "", "Postgres connection URL (required)"},
	{"BLOB_URL", "./data/blobs", "where zips, artifacts and replays live: a folder, file:///path, or s3://bucket?region=..."},
	{"WORKER_CONCURRENCY", "1", "matches played at once by this process (about one per CPU core)"},
	{"WORKER_BUILD_CONCURRENCY", "1", "bot builds run at once by this process; 0 runs no builds"},
	{"SANDBOX", "required", "required: refuse to run where bubblewrap limits cannot be enforced; auto: confine when possible; off: no sandbox (development only)"},
	{"METRICS_ADDR", "", "address for Prometheus metrics at /metrics, for example :9102 (off when empty)"},
	{"LOG_LEVEL", "info", "debug, info, warn or error"},
	{"WORK_DIR", "", "folder for per-job files (default: the system's temporary folder)"},
	{"WORKER_MATCH_TIMEOUT", "30m", "longest one attempt at a match may run"},
	{"WORKER_BUILD_TIMEOUT", "20m", "longest one attempt at a build may run"},
	{"WORKER_RESCUE_AFTER", "", "last resort: after how long a job still running is retried whatever its worker's heartbeats say (default: the longer timeout plus 1m)"},
	{"WORKER_HEARTBEAT", "15s", "how often a worker records that it is alive"},
	{"WORKER_DEAD_AFTER", "45s", "a worker silent this long is taken for dead: its running matches and builds start again on another worker"},
	{"WORKER_SHUTDOWN_GRACE", "5m", "on SIGTERM, how long running jobs may finish before they are handed back to the queue"},
	{"BATTLE_INTERVAL", "10s", "how often due battles start and running battles are checked"},
	{"LADDER_INTERVAL", "30s", "how often the ladder's matchmaker runs; off turns ranked matchmaking off"},
	{"LADDER_SLOTS", "4", "ladder matches per game that may wait in the queue at once"},
	{"BUILD_ENV", "", "NAME=VALUE words given to the dependency downloads of bot builds, for package mirrors: NPM_CONFIG_REGISTRY=… PIP_INDEX_URL=… GOPROXY=…"},
}

// parseConfig reads and validates the configuration; every error names
// the variable at fault.
func parseConfig(getenv func(string) string) (Config, error) {
	get := func(name string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		for _, e := range envVars {
			if e.name == name {
				return e.def
			}
		}
		return ""
	}
	var errs []error
	integer := func(name string, min int) int {
		n, err := strconv.Atoi(get(name))
		if err != nil || n < min {
			errs = append(errs, fmt.Errorf("%s must be a whole number of at least %d, got %q", name, min, get(name)))
		}
		return n
	}
	duration := func(name string) time.Duration {
		v := get(name)
		if v == "" {
			return 0
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s must be a positive duration such as 90s or 30m, got %q", name, v))
		}
		return d
	}
	c := Config{
		DatabaseURL:      get("DATABASE_URL"),
		BlobURL:          get("BLOB_URL"),
		MatchConcurrency: integer("WORKER_CONCURRENCY", 0),
		BuildConcurrency: integer("WORKER_BUILD_CONCURRENCY", 0),
		Sandbox:          get("SANDBOX"),
		MetricsAddr:      get("METRICS_ADDR"),
		WorkDir:          get("WORK_DIR"),
		MatchTimeout:     duration("WORKER_MATCH_TIMEOUT"),
		BuildTimeout:     duration("WORKER_BUILD_TIMEOUT"),
		RescueAfter:      duration("WORKER_RESCUE_AFTER"),
		ShutdownGrace:    duration("WORKER_SHUTDOWN_GRACE"),
		BattleEvery:      duration("BATTLE_INTERVAL"),
		LadderSlots:      integer("LADDER_SLOTS", 1),
		HeartbeatEvery:   duration("WORKER_HEARTBEAT"),
		DeadAfter:        duration("WORKER_DEAD_AFTER"),
	}
	var err error
	if c.BuildEnv, err = parseBuildEnv(get("BUILD_ENV")); err != nil {
		errs = append(errs, err)
	}
	if v := get("LADDER_INTERVAL"); v != "off" && v != "0" {
		c.LadderEvery = duration("LADDER_INTERVAL")
	}
	if c.DatabaseURL == "" {
		errs = append(errs, errors.New("DATABASE_URL is required, for example postgres://broadside@localhost:5432/broadside"))
	} else if !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		errs = append(errs, errors.New("DATABASE_URL must start with postgres:// or postgresql://"))
	}
	switch c.Sandbox {
	case "required", "auto", "off":
	default:
		errs = append(errs, fmt.Errorf("SANDBOX must be required, auto or off, got %q", c.Sandbox))
	}
	if err := c.LogLevel.UnmarshalText([]byte(get("LOG_LEVEL"))); err != nil {
		errs = append(errs, fmt.Errorf("LOG_LEVEL must be debug, info, warn or error, got %q", get("LOG_LEVEL")))
	}
	if c.MatchConcurrency == 0 && c.BuildConcurrency == 0 {
		errs = append(errs, errors.New("WORKER_CONCURRENCY and WORKER_BUILD_CONCURRENCY are both 0: the worker would do nothing"))
	}
	if c.RescueAfter > 0 && (c.RescueAfter < c.MatchTimeout || c.RescueAfter < c.BuildTimeout) {
		errs = append(errs, errors.New("WORKER_RESCUE_AFTER must be at least WORKER_MATCH_TIMEOUT and WORKER_BUILD_TIMEOUT, or a running job would be started twice"))
	}
	if c.DeadAfter > 0 && c.DeadAfter < 2*c.HeartbeatEvery {
		errs = append(errs, errors.New("WORKER_DEAD_AFTER must be at least twice WORKER_HEARTBEAT, or a live worker's jobs would be started twice"))
	}
	return c, errors.Join(errs...)
}

func usage() string {
	var b strings.Builder
	b.WriteString(`Usage: worker [command]

Runs the platform's background jobs: building uploaded bots and playing matches.

Commands:
  (none)               run jobs until SIGTERM or SIGINT, then stop gracefully
  migrate              apply the database migrations and exit
  recompute-ratings    rebuild every rating from the match history and compare
                       with the stored ones; with --write, store the result
  help                 show this help

Environment:
`)
	for _, e := range envVars {
		def := ""
		if e.def != "" {
			def = " (default " + e.def + ")"
		}
		fmt.Fprintf(&b, "  %-25s %s%s\n", e.name, e.help, def)
	}
	return b.String()
}
