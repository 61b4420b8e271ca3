package config

import (
	"strings"
	"testing"
	"time"
)

// TestEnvGetters: each getter's value, default and message for a bad value.
func TestEnvGetters(t *testing.T) {
	tests := []struct {
		name    string
		cmd     string // default worker
		env     map[string]string
		read    func(e *Env) any
		want    any
		wantErr string // empty: no error
	}{
		{"default duration", "", nil, func(e *Env) any { return e.Duration("WORKER_HEARTBEAT") }, 15 * time.Second, ""},
		{"duration", "", map[string]string{"WORKER_HEARTBEAT": " 2m "}, func(e *Env) any { return e.Duration("WORKER_HEARTBEAT") }, 2 * time.Minute, ""},
		{"malformed duration", "", map[string]string{"WORKER_HEARTBEAT": "15"}, func(e *Env) any { return e.Duration("WORKER_HEARTBEAT") }, nil,
			`WORKER_HEARTBEAT must be a positive duration such as 90s or 30m, got "15"`},
		{"negative duration", "", map[string]string{"WORKER_HEARTBEAT": "-1s"}, func(e *Env) any { return e.Duration("WORKER_HEARTBEAT") }, nil, "WORKER_HEARTBEAT must be a positive duration"},
		{"no duration and no default", "", nil, func(e *Env) any { return e.Duration("WORKER_RESCUE_AFTER") }, time.Duration(0), ""},
		{"off", "", map[string]string{"LADDER_INTERVAL": "off"}, func(e *Env) any { return e.DurationOrOff("LADDER_INTERVAL") }, time.Duration(0), ""},
		{"not off", "", map[string]string{"LADDER_INTERVAL": "often"}, func(e *Env) any { return e.DurationOrOff("LADDER_INTERVAL") }, nil, "LADDER_INTERVAL must be a positive duration"},
		{"integer", "", map[string]string{"LADDER_SLOTS": "7"}, func(e *Env) any { return e.Int("LADDER_SLOTS", 1, 10) }, int64(7), ""},
		{"integer too big", "", map[string]string{"LADDER_SLOTS": "11"}, func(e *Env) any { return e.Int("LADDER_SLOTS", 1, 10) }, nil,
			`LADDER_SLOTS must be a whole number from 1 to 10, got "11"`},
		{"one of", "", map[string]string{"SANDBOX": "sometimes"}, func(e *Env) any { return e.OneOf("SANDBOX", "required", "auto", "off") }, nil,
			`SANDBOX must be required, auto or off, got "sometimes"`},
		{"required", "", nil, func(e *Env) any { return e.PostgresURL("DATABASE_URL") }, nil, "DATABASE_URL is required: PostgreSQL URL"},
		{"not postgres", "", map[string]string{"DATABASE_URL": "mysql://x"}, func(e *Env) any { return e.PostgresURL("DATABASE_URL") }, nil, "DATABASE_URL must be a postgres://"},
		{"pprof off", "", nil, func(e *Env) any { return e.LoopbackAddress("WORKER_PPROF_ADDR") }, "", ""},
		{"pprof on loopback", "", map[string]string{"WORKER_PPROF_ADDR": "127.0.0.1:6060"}, func(e *Env) any { return e.LoopbackAddress("WORKER_PPROF_ADDR") }, "127.0.0.1:6060", ""},
		{"pprof on IPv6 loopback", "", map[string]string{"WORKER_PPROF_ADDR": "[::1]:6060"}, func(e *Env) any { return e.LoopbackAddress("WORKER_PPROF_ADDR") }, "[::1]:6060", ""},
		{"pprof on localhost", "", map[string]string{"WORKER_PPROF_ADDR": "localhost:6060"}, func(e *Env) any { return e.LoopbackAddress("WORKER_PPROF_ADDR") }, "localhost:6060", ""},
		{"pprof on every interface", "", map[string]string{"WORKER_PPROF_ADDR": ":6060"}, func(e *Env) any { return e.LoopbackAddress("WORKER_PPROF_ADDR") }, nil,
			`WORKER_PPROF_ADDR must listen on the loopback interface only`},
		{"pprof on 0.0.0.0", "", map[string]string{"WORKER_PPROF_ADDR": "0.0.0.0:6060"}, func(e *Env) any { return e.LoopbackAddress("WORKER_PPROF_ADDR") }, nil,
			`WORKER_PPROF_ADDR must listen on the loopback interface only`},
		{"pprof on a public address", "", map[string]string{"WORKER_PPROF_ADDR": "10.0.0.5:6060"}, func(e *Env) any { return e.LoopbackAddress("WORKER_PPROF_ADDR") }, nil,
			`WORKER_PPROF_ADDR must listen on the loopback interface only`},
		{"pprof on a host name", "", map[string]string{"WORKER_PPROF_ADDR": "worker1:6060"}, func(e *Env) any { return e.LoopbackAddress("WORKER_PPROF_ADDR") }, nil,
			`WORKER_PPROF_ADDR must listen on the loopback interface only`},
		{"pprof without a port", "", map[string]string{"WORKER_PPROF_ADDR": "127.0.0.1"}, func(e *Env) any { return e.LoopbackAddress("WORKER_PPROF_ADDR") }, nil,
			`WORKER_PPROF_ADDR must be host:port on the loopback interface`},
		{"bool unset", Portal, nil, func(e *Env) any { return e.Bool("COOKIE_SECURE") == nil }, true, ""},
		{"bad bool", Portal, map[string]string{"COOKIE_SECURE": "yes"}, func(e *Env) any { return e.Bool("COOKIE_SECURE") }, nil, "COOKIE_SECURE must be true or false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := Worker
			if tc.cmd != "" {
				cmd = tc.cmd
			}
			e := NewEnv(cmd, func(k string) string { return tc.env[k] })
			got := tc.read(e)
			err := e.Err()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %v (%T), want %v (%T)", got, got, tc.want, tc.want)
			}
		})
	}
}

// TestEnvRefusesUndeclared: a command reading a variable the table does
// not give it is a programming error, caught at the first read.
func TestEnvRefusesUndeclared(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "ADDR") {
			t.Fatalf("recovered %v, want a panic naming ADDR", r)
		}
	}()
	NewEnv(Worker, func(string) string { return "" }).String("ADDR")
}

// TestEnvCollectsEveryProblem: one start names every bad variable.
func TestEnvCollectsEveryProblem(t *testing.T) {
	e := NewEnv(Worker, func(k string) string { return map[string]string{"LOG_LEVEL": "loud", "LADDER_SLOTS": "x"}[k] })
	e.LogLevel("LOG_LEVEL")
	e.Int("LADDER_SLOTS", 1, 10)
	e.String("BLOB_URL")
	err := e.Err()
	for _, name := range []string{"LOG_LEVEL", "LADDER_SLOTS", "BLOB_URL"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
}
