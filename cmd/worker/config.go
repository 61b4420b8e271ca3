package main

import (
	"fmt"
	"log/slog"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/config"
	"github.com/broadside/broadside/internal/notify"
)

// Config is the worker's configuration, read from the environment once.
type Config struct {
	DatabaseURL      string
	BlobURL          string
	MatchConcurrency int
	BuildConcurrency int
	// MaxProcs caps the Go scheduler's processors while serving (one per
	// match in flight, see maxProcs); 0 when GOMAXPROCS is set, which
	// then decides.
	MaxProcs    int
	Sandbox     string
	MetricsAddr string
	// PprofAddr serves Go's profiler, on the loopback interface only.
	PprofAddr     string
	LogLevel      slog.Level
	WorkDir       string
	MatchTimeout  time.Duration
	BuildTimeout  time.Duration
	RescueAfter   time.Duration
	ShutdownGrace time.Duration
	// BattleEvery and LadderEvery pace the competition's periodic jobs;
	// a zero LadderEvery turns the ladder's matchmaking off.
	BattleEvery time.Duration
	LadderEvery time.Duration
	LadderSlots int
	// LadderPauseAfter is how many ranked matches in a row a bot may
	// lose by a fault before it leaves the ladder; 0: never.
	LadderPauseAfter int
	// HeartbeatEvery paces the worker's sign of life; a worker silent for
	// DeadAfter is taken for dead and its running jobs run again elsewhere.
	HeartbeatEvery time.Duration
	DeadAfter      time.Duration
	// BuildEnv is added to the environment of build steps that download
	// dependencies (package mirrors).
	BuildEnv []string
	// Dev allows webhooks to loopback and e-mail without TLS (DEV_MODE).
	Dev bool
	// SMTP sends notification e-mail (SMTP_URL), from SMTPFrom; nil
	// sends none. PublicURL is the portal's address for links in it.
	SMTP      *notify.SMTP
	SMTPFrom  string
	PublicURL string
}

// parseConfig reads the configuration from getenv (os.Getenv, or a map
// in tests).
func parseConfig(getenv func(string) string) (Config, error) {
	return readConfig(config.NewEnv(config.Worker, getenv))
}

// maxProcs is how many processors the Go scheduler gets in a worker that
// plays matches at once: one each, one at least. What a match asks of
// the worker itself (its rounds' files, the zip, the queue) is a tenth of
// a core or less; every processor beyond those in use is one more thread
// the runtime wakes to look for work at each of a turn's many wake-ups,
// and on a machine of many cores that search cost the worker more than
// its matches did. Builds, their work done by child processes, share
// them.
func maxProcs(matches int) int {
	return max(matches, 1)
}

// readConfig reads the worker's variables (internal/config's table) and
// checks every value and the rules between them; the error names each
// variable at fault.
func readConfig(env *config.Env) (Config, error) {
	c := Config{
		DatabaseURL:      env.PostgresURL("DATABASE_URL"),
		BlobURL:          env.String("BLOB_URL"),
		MatchConcurrency: int(env.Int("WORKER_CONCURRENCY", 0, 1024)),
		BuildConcurrency: int(env.Int("WORKER_BUILD_CONCURRENCY", 0, 1024)),
		Sandbox:          env.OneOf("SANDBOX", "required", "auto", "off"),
		MetricsAddr:      env.Address("METRICS_ADDR"),
		PprofAddr:        env.LoopbackAddress("WORKER_PPROF_ADDR"),
		LogLevel:         env.LogLevel("LOG_LEVEL"),
		WorkDir:          env.String("WORK_DIR"),
		MatchTimeout:     env.Duration("WORKER_MATCH_TIMEOUT"),
		BuildTimeout:     env.Duration("WORKER_BUILD_TIMEOUT"),
		RescueAfter:      env.Duration("WORKER_RESCUE_AFTER"),
		ShutdownGrace:    env.Duration("WORKER_SHUTDOWN_GRACE"),
		BattleEvery:      env.Duration("BATTLE_INTERVAL"),
		LadderEvery:      env.DurationOrOff("LADDER_INTERVAL"),
		LadderSlots:      int(env.Int("LADDER_SLOTS", 1, 1000)),
		LadderPauseAfter: int(env.Int("LADDER_PAUSE_AFTER", 0, 1000)),
		HeartbeatEvery:   env.Duration("WORKER_HEARTBEAT"),
		DeadAfter:        env.Duration("WORKER_DEAD_AFTER"),
		BuildEnv:         config.Parse(env, "BUILD_ENV", parseBuildEnv),
		SMTPFrom:         env.String("SMTP_FROM"),
		PublicURL:        config.Parse(env, "PUBLIC_URL", parsePublicURL),
	}
	// Go's runtime reads GOMAXPROCS itself; read here, a value it would
	// ignore is refused, and one it took is left alone.
	if env.Int("GOMAXPROCS", 1, 1<<16) == 0 {
		c.MaxProcs = maxProcs(c.MatchConcurrency)
	}
	if c.MatchConcurrency == 0 && c.BuildConcurrency == 0 {
		env.Errorf("WORKER_CONCURRENCY and WORKER_BUILD_CONCURRENCY are both 0: the worker would do nothing")
	}
	if c.RescueAfter > 0 && (c.RescueAfter < c.MatchTimeout || c.RescueAfter < c.BuildTimeout) {
		env.Errorf("WORKER_RESCUE_AFTER must be at least WORKER_MATCH_TIMEOUT and WORKER_BUILD_TIMEOUT, or a running job would be started twice")
	}
	if c.DeadAfter > 0 && c.DeadAfter < 2*c.HeartbeatEvery {
		env.Errorf("WORKER_DEAD_AFTER must be at least twice WORKER_HEARTBEAT, or a live worker's jobs would be started twice")
	}
	if dev := env.Bool("DEV_MODE"); dev != nil {
		c.Dev = *dev
	}
	c.SMTP = config.Parse(env, "SMTP_URL", func(s string) (*notify.SMTP, error) { return notify.ParseSMTPURL(s, c.Dev) })
	if _, err := notify.CheckAddress(fromAddress(c.SMTPFrom)); c.SMTPFrom != "" && err != nil {
		env.Errorf("SMTP_FROM must be an address such as Broadside <noreply@example.org>, got %q", c.SMTPFrom)
	}
	return c, env.Err()
}

func usage() string {
	return `Usage: worker [command]

Runs the platform's background jobs: building uploaded bots and playing matches.

Commands:
  (none)               run jobs until SIGTERM or SIGINT, then stop gracefully
  migrate              apply the database migrations and exit
  recompute-ratings    rebuild every rating from the match history and compare
                       with the stored ones; with --write, store the result
  probe                say what the bot sandbox can enforce on this machine and
                       how it got its cgroups; exit 1 when it cannot confine bots
  help                 show this help

` + config.Help(config.Worker)
}

// parsePublicURL checks PUBLIC_URL: an http:// or https:// address.
func parsePublicURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("must be the portal's http:// or https:// address, got %q", s)
	}
	return strings.TrimSuffix(s, "/"), nil
}

// fromAddress is the bare address of a sender such as "Name <a@b>".
func fromAddress(s string) string {
	if a, err := mail.ParseAddress(s); err == nil {
		return a.Address
	}
	return s
}
