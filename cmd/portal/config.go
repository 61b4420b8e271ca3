package main

import (
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/broadside/broadside/internal/web"
)

// Config is the portal's configuration, read from the environment once.
type Config struct {
	DatabaseURL    string
	Addr           string
	BlobURL        string
	CookieSecure   *bool
	UploadMaxBytes int64
	LogLevel       slog.Level
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client for the log-in and registration limits.
	TrustedProxies []netip.Prefix
}

// envHelp lists every variable the portal reads, for --help.
const envHelp = `Environment:
  DATABASE_URL      PostgreSQL URL (default postgres://postgres@127.0.0.1:5432/broadside?sslmode=disable)
  ADDR              listen address (default :8080)
  BLOB_URL          where bot zips and replays are kept: file:///path or s3://bucket?region=...
                    (default file://<current folder>/data/blobs)
  COOKIE_SECURE     true or false: force the Secure flag of cookies (default: secure unless plain HTTP)
  UPLOAD_MAX_BYTES  largest bot zip accepted, in bytes (default 20971520, 20 MiB)
  LOG_LEVEL         debug, info, warn or error (default info)
  TRUSTED_PROXIES   comma-separated addresses or CIDR prefixes of reverse proxies whose
                    X-Forwarded-For names the client for rate limits (default none: the peer)
`

// parseConfig reads the configuration and checks every value, naming the
// variable at fault.
func parseConfig(getenv func(string) string) (Config, error) {
	cfg := Config{
		DatabaseURL:    getenv("DATABASE_URL"),
		Addr:           getenv("ADDR"),
		BlobURL:        getenv("BLOB_URL"),
		UploadMaxBytes: 20 << 20,
	}
	if cfg.DatabaseURL == "" {
		cfg.DatabaseURL = "postgres://postgres@127.0.0.1:5432/broadside?sslmode=disable"
	}
	if !strings.HasPrefix(cfg.DatabaseURL, "postgres://") && !strings.HasPrefix(cfg.DatabaseURL, "postgresql://") {
		return cfg, fmt.Errorf("DATABASE_URL must be a postgres:// URL, got %q", cfg.DatabaseURL)
	}
	if cfg.Addr == "" {
		cfg.Addr = ":8080"
	}
	if !strings.Contains(cfg.Addr, ":") {
		return cfg, fmt.Errorf("ADDR must be host:port or :port, got %q", cfg.Addr)
	}
	if cfg.BlobURL == "" {
		wd, err := os.Getwd()
		if err != nil {
			return cfg, fmt.Errorf("BLOB_URL is unset and the current folder is unknown: %w", err)
		}
		cfg.BlobURL = "file://" + filepath.ToSlash(filepath.Join(wd, "data", "blobs"))
	}
	if v := getenv("COOKIE_SECURE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return cfg, fmt.Errorf("COOKIE_SECURE must be true or false, got %q", v)
		}
		cfg.CookieSecure = &b
	}
	if v := getenv("UPLOAD_MAX_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1024 || n > 1<<30 {
			return cfg, fmt.Errorf("UPLOAD_MAX_BYTES must be a number of bytes from 1024 to 1073741824, got %q", v)
		}
		cfg.UploadMaxBytes = n
	}
	if v := getenv("LOG_LEVEL"); v != "" {
		if err := cfg.LogLevel.UnmarshalText([]byte(v)); err != nil {
			return cfg, fmt.Errorf("LOG_LEVEL must be debug, info, warn or error, got %q", v)
		}
	}
	if v := getenv("TRUSTED_PROXIES"); v != "" {
		p, err := web.ParseTrustedProxies(v)
		if err != nil {
			return cfg, fmt.Errorf("TRUSTED_PROXIES must be addresses or CIDR prefixes separated by commas, got %q: %w", v, err)
		}
		cfg.TrustedProxies = p
	}
	return cfg, nil
}
