package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/testdb"
)

// TestRefusesUnmigratedDatabase: the worker on a new database refuses to
// start, saying to run `worker migrate`, instead of failing job after job;
// after the migration its commands work; on a database a newer release
// migrated it refuses again.
func TestRefusesUnmigratedDatabase(t *testing.T) {
	t.Parallel()
	dbURL := testdb.EmptyURL(t)
	env := envOf(map[string]string{"DATABASE_URL": dbURL, "BLOB_URL": "file://" + t.TempDir(), "WORK_DIR": t.TempDir(),
		"SANDBOX": "off", "LOG_LEVEL": "error"})
	// A worker that wrongly starts runs jobs until the context ends: the
	// timeout only bounds that failure.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	refuses := func(t *testing.T, args []string, want ...string) {
		t.Helper()
		var stderr bytes.Buffer
		code := run(ctx, args, env, io.Discard, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != 1 || len(lines) != 1 {
			t.Fatalf("worker %v: exit %d, stderr:\n%s\nwant exit 1 and one line", args, code, stderr.String())
		}
		for _, w := range want {
			if !strings.Contains(lines[0], w) {
				t.Fatalf("worker %v: %s\nwant %q", args, lines[0], w)
			}
		}
	}
	refuses(t, nil, "database is at migration 0 but this worker needs", "run `worker migrate`")
	refuses(t, []string{"recompute-ratings"}, "run `worker migrate`")

	var out bytes.Buffer
	if code := run(ctx, []string{"migrate"}, env, &out, io.Discard); code != 0 {
		t.Fatalf("migrate: exit %d", code)
	}
	out.Reset()
	if code := run(ctx, []string{"recompute-ratings"}, env, &out, io.Discard); code != 0 || !strings.Contains(out.String(), "Stored ratings equal the history") {
		t.Fatalf("recompute-ratings after migrate: exit %d\n%s", code, out.String())
	}

	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE schema_migrations SET version = version + 1`); err != nil {
		t.Fatal(err)
	}
	refuses(t, nil, "newer than the", "this worker knows")
}
