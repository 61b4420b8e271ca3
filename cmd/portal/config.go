package main

import (
	"fmt"
	"log/slog"
	"net/netip"

	"github.com/broadside/broadside/internal/config"
	"github.com/broadside/broadside/internal/notify"
	"github.com/broadside/broadside/internal/web"
)

// Config is the portal's configuration, read from the environment once.
type Config struct {
	DatabaseURL    string
	Addr           string
	BlobURL        string
	CookieSecure   *bool
	UploadMaxBytes int64
	// UploadMaxQueuedBuilds and UploadsPerHour bound one user's uploads.
	UploadMaxQueuedBuilds int
	UploadsPerHour        int
	LogLevel              slog.Level
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client for the log-in and registration limits.
	TrustedProxies []netip.Prefix
	// Dev lets webhooks be plain http:// to loopback (DEV_MODE).
	Dev bool
	// Email is set when SMTP_URL names a server: the account page then
	// offers e-mail notifications.
	Email bool
}

// parseConfig reads the configuration from getenv (os.Getenv, or a map
// in tests).
func parseConfig(getenv func(string) string) (Config, error) {
	return readConfig(config.NewEnv(config.Portal, getenv))
}

// readConfig reads the portal's variables (internal/config's table) and
// checks every value; the error names each variable at fault.
func readConfig(env *config.Env) (Config, error) {
	cfg := Config{
		DatabaseURL:           env.PostgresURL("DATABASE_URL"),
		Addr:                  env.Address("ADDR"),
		BlobURL:               env.String("BLOB_URL"),
		CookieSecure:          env.Bool("COOKIE_SECURE"),
		UploadMaxBytes:        env.Int("UPLOAD_MAX_BYTES", 1024, 1<<30),
		UploadMaxQueuedBuilds: int(env.Int("UPLOAD_MAX_QUEUED_BUILDS", 0, 1000)),
		UploadsPerHour:        int(env.Int("UPLOAD_MAX_PER_HOUR", 0, 1000000)),
		LogLevel:              env.LogLevel("LOG_LEVEL"),
		TrustedProxies:        config.Parse(env, "TRUSTED_PROXIES", parseTrustedProxies),
	}
	if dev := env.Bool("DEV_MODE"); dev != nil {
		cfg.Dev = *dev
	}
	// Parsed as the worker parses it, so a bad value stops both.
	smtp := config.Parse(env, "SMTP_URL", func(s string) (*notify.SMTP, error) { return notify.ParseSMTPURL(s, cfg.Dev) })
	cfg.Email = smtp != nil
	return cfg, env.Err()
}

func parseTrustedProxies(s string) ([]netip.Prefix, error) {
	p, err := web.ParseTrustedProxies(s)
	if err != nil {
		return nil, fmt.Errorf("must be addresses or CIDR prefixes separated by commas, got %q: %w", s, err)
	}
	return p, nil
}
