package main

import (
	"log/slog"
	"maps"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/config"
)

func TestParseConfig(t *testing.T) {
	// The settings every command needs: no defaults (internal/config).
	required := map[string]string{"DATABASE_URL": "postgres://u@db/x", "BLOB_URL": "file:///srv/blobs"}
	cases := []struct {
		name    string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{"defaults", nil, "", func(t *testing.T, c Config) {
			if c.Addr != ":8080" || c.UploadMaxBytes != 20<<20 || c.CookieSecure != nil || c.LogLevel != slog.LevelInfo ||
				c.BlobURL != "file:///srv/blobs" || c.DatabaseURL != "postgres://u@db/x" || c.TrustedProxies != nil {
				t.Fatalf("defaults %+v", c)
			}
		}},
		{"all set", map[string]string{"DATABASE_URL": "postgresql://u@db/y", "ADDR": "127.0.0.1:0", "BLOB_URL": "s3://b?region=x",
			"COOKIE_SECURE": "true", "UPLOAD_MAX_BYTES": "1048576", "LOG_LEVEL": "debug"}, "", func(t *testing.T, c Config) {
			if c.Addr != "127.0.0.1:0" || c.UploadMaxBytes != 1<<20 || c.CookieSecure == nil || !*c.CookieSecure ||
				c.LogLevel != slog.LevelDebug || c.BlobURL != "s3://b?region=x" || c.DatabaseURL != "postgresql://u@db/y" {
				t.Fatalf("parsed %+v", c)
			}
		}},
		{"no database", map[string]string{"DATABASE_URL": ""}, "DATABASE_URL is required", nil},
		{"no blob store", map[string]string{"BLOB_URL": " "}, "BLOB_URL is required", nil},
		{"bad database URL", map[string]string{"DATABASE_URL": "mysql://x"}, "DATABASE_URL", nil},
		{"bad address", map[string]string{"ADDR": "8080"}, "ADDR", nil},
		{"bad cookie flag", map[string]string{"COOKIE_SECURE": "maybe"}, "COOKIE_SECURE", nil},
		{"upload limit not a number", map[string]string{"UPLOAD_MAX_BYTES": "20MB"}, "UPLOAD_MAX_BYTES", nil},
		{"upload limit too small", map[string]string{"UPLOAD_MAX_BYTES": "10"}, "UPLOAD_MAX_BYTES", nil},
		{"bad trusted proxy", map[string]string{"TRUSTED_PROXIES": "10.0.0.1, proxy.internal"}, "TRUSTED_PROXIES must be addresses", nil},
		{"trusted proxies", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, ::1"}, "", func(t *testing.T, c Config) {
			if len(c.TrustedProxies) != 2 || c.TrustedProxies[0].String() != "10.0.0.0/8" || c.TrustedProxies[1].String() != "::1/128" {
				t.Fatalf("TrustedProxies = %v", c.TrustedProxies)
			}
		}},
		{"bad log level", map[string]string{"LOG_LEVEL": "loud"}, "LOG_LEVEL", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := maps.Clone(required)
			maps.Copy(env, c.env)
			cfg, err := parseConfig(func(k string) string { return env[k] })
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, cfg)
		})
	}
}

// TestConfigReadsItsTable: the portal reads every variable the table (and
// so the README and --help) says it uses; reading one the table does not
// give it panics in config.Env.
func TestConfigReadsItsTable(t *testing.T) {
	env := config.NewEnv(config.Portal, func(string) string { return "" })
	readConfig(env)
	if unread := env.Unread(); len(unread) > 0 {
		t.Fatalf("the table says the portal reads %v, but it does not", unread)
	}
}
