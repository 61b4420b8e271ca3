package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/testdb"
	"github.com/broadside/broadside/internal/testenv"
)

// TestServeCapsProcs: a serving worker gives the Go scheduler one
// processor per match it plays at once, unless GOMAXPROCS says otherwise,
// and says so when it starts. Not parallel: it sets the test process's
// GOMAXPROCS, as the worker sets its own.
func TestServeCapsProcs(t *testing.T) {
	dbURL := testdb.EmptyURL(t)
	base := map[string]string{"DATABASE_URL": dbURL, "BLOB_URL": "file://" + t.TempDir(), "WORK_DIR": t.TempDir(),
		"SANDBOX": "off", "LOG_LEVEL": "info", "LADDER_INTERVAL": "off"}
	if code := run(context.Background(), []string{"migrate"}, envOf(base), io.Discard, io.Discard); code != 0 {
		t.Fatalf("migrate: exit %d", code)
	}
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })

	for _, tc := range []struct {
		name      string
		env       map[string]string
		wantProcs int
	}{
		{"one match at a time", map[string]string{"WORKER_CONCURRENCY": "1"}, 1},
		{"three at a time", map[string]string{"WORKER_CONCURRENCY": "3"}, 3},
		{"GOMAXPROCS set", map[string]string{"WORKER_CONCURRENCY": "1", "GOMAXPROCS": "4"}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// What the runtime would have chosen on a machine of four cores
			// (or GOMAXPROCS=4, read at the process's start).
			runtime.GOMAXPROCS(4)
			env := maps.Clone(base)
			maps.Copy(env, tc.env)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var log testenv.Buffer
			done := make(chan int, 1)
			go func() { done <- run(ctx, nil, envOf(env), io.Discard, &log) }()
			deadline := time.Now().Add(time.Minute)
			for !strings.Contains(log.String(), "worker started") {
				select {
				case code := <-done:
					t.Fatalf("worker ended with %d before it started:\n%s", code, log.String())
				case <-time.After(20 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("no start in a minute:\n%s", log.String())
				}
			}
			if got := runtime.GOMAXPROCS(0); got != tc.wantProcs {
				t.Errorf("GOMAXPROCS %d, want %d", got, tc.wantProcs)
			}
			if want := fmt.Sprintf("procs=%d", tc.wantProcs); !strings.Contains(log.String(), want) {
				t.Errorf("the start line does not say %s:\n%s", want, log.String())
			}
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("worker exit %d after SIGTERM's cancel:\n%s", code, log.String())
			}
		})
	}
}
