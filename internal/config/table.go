// Package config reads the portal's and the worker's settings from the
// environment. One table declares every variable with its default, its
// meaning and the commands that read it; the same table writes --help and
// is checked against the README, so the three cannot drift apart.
package config

import (
	"fmt"
	"slices"
	"strings"
)

// The commands that read settings, as the table's UsedBy names them.
const (
	Portal = "portal"
	Worker = "worker"
)

// Var declares one environment variable.
type Var struct {
	Name string
	// Required variables have no default: the command refuses to start
	// without them.
	Required bool
	// Default is the value used when the variable is unset or empty; ""
	// for none.
	Default string
	// DefaultNote describes the default in words: what happens without a
	// value ("off", "the system's temporary folder"), or a gloss on
	// Default ("20 MiB").
	DefaultNote string
	// Meaning is one line for --help and the README.
	Meaning string
	// UsedBy names the commands that read the variable.
	UsedBy []string
}

// DefaultText is the default as the README and --help show it.
func (v Var) DefaultText() string {
	switch {
	case v.Required:
		return "required"
	case v.Default != "" && v.DefaultNote != "":
		return fmt.Sprintf("`%s` (%s)", v.Default, v.DefaultNote)
	case v.Default != "":
		return "`" + v.Default + "`"
	}
	return v.DefaultNote
}

// Vars is the table of every setting. DATABASE_URL and BLOB_URL are
// required by both commands: every process of the platform must name the
// same database and the same store, and a default would let one process
// quietly use its own (a worker writing built bots to its local folder
// while the portal reads S3).
func Vars() []Var {
	both := []string{Portal, Worker}
	portal := []string{Portal}
	worker := []string{Worker}
	return []Var{
		{Name: "DATABASE_URL", Required: true, UsedBy: both,
			Meaning: "PostgreSQL URL, postgres://user:password@host:5432/database?sslmode=disable"},
		{Name: "BLOB_URL", Required: true, UsedBy: both,
			Meaning: "where bot zips, built bots and replays are kept, the same for every process: a folder, file:///path, or s3://bucket?region=…&endpoint=…"},
		{Name: "LOG_LEVEL", Default: "info", UsedBy: both,
			Meaning: "debug, info, warn or error"},
		{Name: "ADDR", Default: ":8080", UsedBy: portal,
			Meaning: "listen address, host:port or :port"},
		{Name: "COOKIE_SECURE", DefaultNote: "secure unless plain HTTP", UsedBy: portal,
			Meaning: "true or false: force the Secure flag of session cookies on or off"},
		{Name: "UPLOAD_MAX_BYTES", Default: "20971520", DefaultNote: "20 MiB", UsedBy: portal,
			Meaning: "largest bot zip accepted, in bytes (1024 to 1073741824)"},
		{Name: "UPLOAD_MAX_QUEUED_BUILDS", Default: "3", UsedBy: portal,
			Meaning: "builds of one user that may wait or run at once; an upload past it is refused (429) until one ends; 0: no limit"},
		{Name: "UPLOAD_MAX_PER_HOUR", Default: "20", UsedBy: portal,
			Meaning: "bot versions one user may upload within any hour; past it an upload is refused (429); 0: no limit"},
		{Name: "TRUSTED_PROXIES", DefaultNote: "none", UsedBy: portal,
			Meaning: "comma-separated addresses or CIDR prefixes of reverse proxies in front of the portal; only from these is X-Forwarded-For read, for the log-in and registration limits"},
		{Name: "WORKER_CONCURRENCY", Default: "1", UsedBy: worker,
			Meaning: "matches played at once by one worker process, about one per CPU core; 0 plays none"},
		{Name: "WORKER_BUILD_CONCURRENCY", Default: "1", UsedBy: worker,
			Meaning: "bot builds run at once by one worker process; 0 runs none"},
		{Name: "GOMAXPROCS", DefaultNote: "one per match", UsedBy: worker,
			Meaning: "Go's own: the processors the worker's scheduler uses; unset, one per match played at once (WORKER_CONCURRENCY, at least 1)"},
		{Name: "SANDBOX", Default: "required", UsedBy: worker,
			Meaning: "required: refuse to start where bubblewrap cannot enforce the limits; auto: confine where possible; off: never confine (development only)"},
		{Name: "METRICS_ADDR", DefaultNote: "off", UsedBy: worker,
			Meaning: "address of the Prometheus metrics listener (/metrics), for example :9102"},
		{Name: "WORKER_PPROF_ADDR", DefaultNote: "off", UsedBy: worker,
			Meaning: "loopback address of Go's profiler (/debug/pprof/), for example 127.0.0.1:6060; an address other machines can reach is refused"},
		{Name: "WORK_DIR", DefaultNote: "the system's temporary folder", UsedBy: worker,
			Meaning: "folder for per-job files (bot copies, replays being written)"},
		{Name: "WORKER_MATCH_TIMEOUT", Default: "30m", UsedBy: worker,
			Meaning: "longest one attempt at a match may run"},
		{Name: "WORKER_BUILD_TIMEOUT", Default: "5m", UsedBy: worker,
			Meaning: "longest a build may run; one that runs longer fails, with the reason in its log, and is not retried"},
		{Name: "WORKER_RESCUE_AFTER", DefaultNote: "the longer timeout + 1m", UsedBy: worker,
			Meaning: "last resort: after how long a job still running is retried whatever its worker's heartbeats say"},
		{Name: "WORKER_HEARTBEAT", Default: "15s", UsedBy: worker,
			Meaning: "how often a worker records that it is alive"},
		{Name: "WORKER_DEAD_AFTER", Default: "45s", UsedBy: worker,
			Meaning: "a worker silent this long is taken for dead: its running matches and builds start again on another worker"},
		{Name: "WORKER_SHUTDOWN_GRACE", Default: "5m", UsedBy: worker,
			Meaning: "on SIGTERM, how long running jobs may finish before they are handed back to the queue"},
		{Name: "BATTLE_INTERVAL", Default: "10s", UsedBy: worker,
			Meaning: "how often due battles start and running ones advance"},
		{Name: "LADDER_INTERVAL", Default: "30s", UsedBy: worker,
			Meaning: "how often the ladder's matchmaker runs; off turns ranked matchmaking off"},
		{Name: "LADDER_SLOTS", Default: "4", UsedBy: worker,
			Meaning: "ladder matches per game that may wait in the queue at once (a pair of two-player matches takes two; a pair is made while one slot is free)"},
		{Name: "LADDER_PAUSE_AFTER", Default: "5", UsedBy: worker,
			Meaning: "ranked matches in a row a bot may lose by a crash, a time-out or a forfeit before it leaves the ladder until a new version builds or its owner puts it back; 0 never takes one off (house bots never leave)"},
		{Name: "DEV_MODE", Default: "false", UsedBy: both,
			Meaning: "true for development and tests only: webhooks may be plain http:// to a loopback address, and e-mail may go to an SMTP server without TLS"},
		{Name: "SMTP_URL", DefaultNote: "no e-mail", UsedBy: both,
			Meaning: "SMTP server for notification e-mail, smtp://user:password@host:587 (STARTTLS) or smtps://user:password@host:465"},
		{Name: "SMTP_FROM", Default: "Broadside <noreply@localhost>", UsedBy: worker,
			Meaning: "sender address of notification e-mail"},
		{Name: "PUBLIC_URL", Default: "http://localhost:8080", UsedBy: worker,
			Meaning: "the portal's address as users reach it, for the links in e-mail (verification, unsubscribe)"},
		{Name: "BUILD_ENV", DefaultNote: "none", UsedBy: worker,
			Meaning: "NAME=VALUE words given to the dependency downloads of bot builds, for package mirrors; MAVEN_MIRROR names Maven's one repository"},
	}
}

// For returns the variables cmd reads, in the table's order.
func For(cmd string) []Var {
	var out []Var
	for _, v := range Vars() {
		if slices.Contains(v.UsedBy, cmd) {
			out = append(out, v)
		}
	}
	return out
}

// Help lists cmd's variables for its --help.
func Help(cmd string) string {
	var b strings.Builder
	b.WriteString("Environment:\n")
	for _, v := range For(cmd) {
		def := "required"
		switch {
		case v.Default != "" && v.DefaultNote != "":
			def = "default " + v.Default + ", " + v.DefaultNote
		case v.Default != "":
			def = "default " + v.Default
		case !v.Required:
			def = "default " + v.DefaultNote
		}
		fmt.Fprintf(&b, "  %-25s %s (%s)\n", v.Name, v.Meaning, def)
	}
	return b.String()
}
