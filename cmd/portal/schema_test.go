package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/testdb"
)

// TestRefusesUnmigratedDatabase: the portal on a new database refuses to
// start, saying to run `portal migrate`, instead of listening and
// answering 500; after the migration it serves; on a database a newer
// release migrated it refuses again.
func TestRefusesUnmigratedDatabase(t *testing.T) {
	t.Parallel()
	dbURL := testdb.EmptyURL(t)
	env := map[string]string{"DATABASE_URL": dbURL, "BLOB_URL": "file://" + t.TempDir(), "ADDR": "127.0.0.1:0", "LOG_LEVEL": "warn"}
	getenv := func(k string) string { return env[k] }
	// A portal that wrongly starts serves until the context ends: the
	// timeout only bounds that failure.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	refuses := func(t *testing.T, want string) {
		t.Helper()
		var stderr bytes.Buffer
		code := run(ctx, nil, getenv, io.Discard, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != 1 || len(lines) != 1 || !strings.Contains(lines[0], want) {
			t.Fatalf("exit %d, stderr:\n%s\nwant one line with %q", code, stderr.String(), want)
		}
	}
	refuses(t, "database is at migration 0 but this portal needs")
	refuses(t, "run `portal migrate`")
	for _, cmd := range [][]string{{"seed-house-bots", t.TempDir()}, {"make-organiser", "olga"}} {
		var stderr bytes.Buffer
		if code := run(ctx, cmd, getenv, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "run `portal migrate`") {
			t.Fatalf("portal %s: exit %d, stderr %s", cmd[0], code, stderr.String())
		}
	}

	if code := run(ctx, []string{"migrate"}, getenv, io.Discard, io.Discard); code != 0 {
		t.Fatalf("migrate: exit %d", code)
	}
	cfg, err := parseConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := m.Run(ctx); err != nil {
		t.Fatalf("after migrate: %v", err)
	}
	for _, path := range []string{"/clans", "/battles"} {
		res, err := http.Get("http://" + m.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s after migrate: %d", path, res.StatusCode)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE schema_migrations SET version = version + 1`); err != nil {
		t.Fatal(err)
	}
	refuses(t, "newer than the")
}
