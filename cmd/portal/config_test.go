package main

import (
	"log/slog"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{"defaults", nil, "", func(t *testing.T, c Config) {
			if c.Addr != ":8080" || c.UploadMaxBytes != 20<<20 || c.CookieSecure != nil || c.LogLevel != slog.LevelInfo ||
				!strings.HasPrefix(c.BlobURL, "file://") || !strings.Contains(c.DatabaseURL, "/broadside") {
				t.Fatalf("defaults %+v", c)
			}
		}},
		{"all set", map[string]string{"DATABASE_URL": "postgres://u@db/x", "ADDR": "127.0.0.1:0", "BLOB_URL": "s3://b?region=x",
			"COOKIE_SECURE": "true", "UPLOAD_MAX_BYTES": "1048576", "LOG_LEVEL": "debug"}, "", func(t *testing.T, c Config) {
			if c.Addr != "127.0.0.1:0" || c.UploadMaxBytes != 1<<20 || c.CookieSecure == nil || !*c.CookieSecure ||
				c.LogLevel != slog.LevelDebug || c.BlobURL != "s3://b?region=x" {
				t.Fatalf("parsed %+v", c)
			}
		}},
		{"bad database URL", map[string]string{"DATABASE_URL": "mysql://x"}, "DATABASE_URL", nil},
		{"bad address", map[string]string{"ADDR": "8080"}, "ADDR", nil},
		{"bad cookie flag", map[string]string{"COOKIE_SECURE": "maybe"}, "COOKIE_SECURE", nil},
		{"upload limit not a number", map[string]string{"UPLOAD_MAX_BYTES": "20MB"}, "UPLOAD_MAX_BYTES", nil},
		{"upload limit too small", map[string]string{"UPLOAD_MAX_BYTES": "10"}, "UPLOAD_MAX_BYTES", nil},
		{"bad trusted proxy", map[string]string{"TRUSTED_PROXIES": "10.0.0.1, proxy.internal"}, "TRUSTED_PROXIES", nil},
		{"trusted proxies", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, ::1"}, "", func(t *testing.T, c Config) {
			if len(c.TrustedProxies) != 2 || c.TrustedProxies[0].String() != "10.0.0.0/8" || c.TrustedProxies[1].String() != "::1/128" {
				t.Fatalf("TrustedProxies = %v", c.TrustedProxies)
			}
		}},
		{"bad log level", map[string]string{"LOG_LEVEL": "loud"}, "LOG_LEVEL", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseConfig(func(k string) string { return c.env[k] })
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
