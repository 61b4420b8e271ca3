package main

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/config"
)

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestParseConfig(t *testing.T) {
	const db = "postgres://u@localhost/db"
	const blobs = "file:///srv/blobs"
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string // names the variable; empty: valid
		check   func(t *testing.T, c Config)
	}{
		{"defaults", map[string]string{"DATABASE_URL": db, "BLOB_URL": blobs}, "", func(t *testing.T, c Config) {
			if c.Sandbox != "required" || c.MatchConcurrency != 1 || c.BuildConcurrency != 1 || c.BlobURL != blobs ||
				c.MatchTimeout != 30*time.Minute || c.ShutdownGrace != 5*time.Minute || c.MaxProcs != 1 {
				t.Fatalf("got %+v", c)
			}
		}},
		{"all set", map[string]string{"DATABASE_URL": db, "WORKER_CONCURRENCY": "4", "SANDBOX": "off", "LOG_LEVEL": "debug",
			"WORKER_MATCH_TIMEOUT": "90s", "WORKER_RESCUE_AFTER": "40m"}, "", func(t *testing.T, c Config) {
			if c.MatchConcurrency != 4 || c.Sandbox != "off" || c.LogLevel.String() != "DEBUG" || c.MatchTimeout != 90*time.Second || c.MaxProcs != 4 {
				t.Fatalf("got %+v", c)
			}
		}},
		{"builds only", map[string]string{"DATABASE_URL": db, "WORKER_CONCURRENCY": "0"}, "", func(t *testing.T, c Config) {
			if c.MaxProcs != 1 {
				t.Fatalf("MaxProcs %d, want 1", c.MaxProcs)
			}
		}},
		{"GOMAXPROCS decides", map[string]string{"DATABASE_URL": db, "WORKER_CONCURRENCY": "4", "GOMAXPROCS": "16"}, "", func(t *testing.T, c Config) {
			if c.MaxProcs != 0 {
				t.Fatalf("MaxProcs %d, want 0 (the runtime's, from GOMAXPROCS)", c.MaxProcs)
			}
		}},
		{"GOMAXPROCS not a count", map[string]string{"DATABASE_URL": db, "GOMAXPROCS": "all"}, "GOMAXPROCS must be a whole number", nil},
		{"missing database", map[string]string{"BLOB_URL": blobs}, "DATABASE_URL is required", nil},
		{"missing blob store", map[string]string{"DATABASE_URL": db, "BLOB_URL": ""}, "BLOB_URL is required", nil},
		{"not a postgres URL", map[string]string{"DATABASE_URL": "mysql://x"}, "DATABASE_URL", nil},
		{"bad concurrency", map[string]string{"DATABASE_URL": db, "WORKER_CONCURRENCY": "-1"}, "WORKER_CONCURRENCY", nil},
		{"nothing to do", map[string]string{"DATABASE_URL": db, "WORKER_CONCURRENCY": "0", "WORKER_BUILD_CONCURRENCY": "0"}, "both 0", nil},
		{"bad sandbox", map[string]string{"DATABASE_URL": db, "SANDBOX": "maybe"}, "SANDBOX", nil},
		{"bad log level", map[string]string{"DATABASE_URL": db, "LOG_LEVEL": "loud"}, "LOG_LEVEL", nil},
		{"build mirrors", map[string]string{"DATABASE_URL": db, "BUILD_ENV": " NPM_CONFIG_REGISTRY=https://npm.example.org/  GOPROXY=https://a,direct "}, "",
			func(t *testing.T, c Config) {
				if len(c.BuildEnv) != 2 || c.BuildEnv[0] != "NPM_CONFIG_REGISTRY=https://npm.example.org/" || c.BuildEnv[1] != "GOPROXY=https://a,direct" {
					t.Fatalf("BuildEnv %q", c.BuildEnv)
				}
			}},
		{"maven mirror", map[string]string{"DATABASE_URL": db, "BUILD_ENV": "MAVEN_MIRROR=file:///usr/share/maven-repo"}, "",
			func(t *testing.T, c Config) {
				if len(c.BuildEnv) != 1 {
					t.Fatalf("BuildEnv %q", c.BuildEnv)
				}
			}},
		{"maven mirror outside the sandbox's view", map[string]string{"DATABASE_URL": db, "BUILD_ENV": "MAVEN_MIRROR=file:///srv/m2"}, "MAVEN_MIRROR must be", nil},
		{"maven mirror not a URL", map[string]string{"DATABASE_URL": db, "BUILD_ENV": "MAVEN_MIRROR=maven.example.org"}, "MAVEN_MIRROR must be", nil},
		{"build env without a value", map[string]string{"DATABASE_URL": db, "BUILD_ENV": "GOPROXY"}, "BUILD_ENV wants NAME=VALUE", nil},
		{"build env may not change the proxy", map[string]string{"DATABASE_URL": db, "BUILD_ENV": "https_proxy=http://x"}, "BUILD_ENV may not set https_proxy", nil},
		{"bad duration", map[string]string{"DATABASE_URL": db, "WORKER_MATCH_TIMEOUT": "soon"}, "WORKER_MATCH_TIMEOUT", nil},
		{"profiler on loopback", map[string]string{"DATABASE_URL": db, "WORKER_PPROF_ADDR": "127.0.0.1:6060"}, "", func(t *testing.T, c Config) {
			if c.PprofAddr != "127.0.0.1:6060" {
				t.Fatalf("PprofAddr %q", c.PprofAddr)
			}
		}},
		{"profiler on every interface", map[string]string{"DATABASE_URL": db, "WORKER_PPROF_ADDR": ":6060"}, "WORKER_PPROF_ADDR must listen on the loopback interface only", nil},
		{"rescue shorter than a job", map[string]string{"DATABASE_URL": db, "WORKER_RESCUE_AFTER": "1m"}, "WORKER_RESCUE_AFTER", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"BLOB_URL": blobs}
			maps.Copy(env, tc.env)
			c, err := parseConfig(envOf(env))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				tc.check(t, c)
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want an error naming %s", err, tc.wantErr)
			}
		})
	}
}

func TestRunCommandLine(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, envOf(nil), &out, &errOut); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, v := range config.For(config.Worker) {
		if !strings.Contains(out.String(), v.Name) {
			t.Errorf("--help does not list %s", v.Name)
		}
	}
	out.Reset()
	if code := run(context.Background(), []string{"frobnicate"}, envOf(nil), &out, &errOut); code != 2 {
		t.Fatalf("unknown command exit %d", code)
	}
	errOut.Reset()
	if code := run(context.Background(), nil, envOf(map[string]string{"SANDBOX": "x"}), &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), "DATABASE_URL is required") || !strings.Contains(errOut.String(), "SANDBOX") {
		t.Fatalf("bad config: exit %d, %s", code, errOut.String())
	}
}

// TestConfigReadsItsTable: the worker reads every variable the table (and
// so the README and --help) says it uses; reading one the table does not
// give it panics in config.Env.
func TestConfigReadsItsTable(t *testing.T) {
	env := config.NewEnv(config.Worker, func(string) string { return "" })
	readConfig(env)
	if unread := env.Unread(); len(unread) > 0 {
		t.Fatalf("the table says the worker reads %v, but it does not", unread)
	}
}
