package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/config"
	"github.com/broadside/broadside/internal/testdb"
)

func testEnv(t *testing.T) (func(string) string, string) {
	t.Helper()
	dbURL := testdb.URL(t)
	env := map[string]string{
		"DATABASE_URL": dbURL,
		"ADDR":         "127.0.0.1:0",
		"BLOB_URL":     "file://" + t.TempDir(),
		"LOG_LEVEL":    "warn",
		// The browser tests upload a user's bots all at once, more than
		// the default limit of builds waiting; internal/web's
		// TestUploadLimits tests the limits.
		"UPLOAD_MAX_QUEUED_BUILDS": "10",
		// Webhooks of the tests go to their own servers on loopback.
		"DEV_MODE": "true",
	}
	return func(k string) string { return env[k] }, dbURL
}

func TestHelpListsEveryVariable(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, func(string) string { return "" }, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	words := []string{"migrate", "seed-house-bots", "make-organiser"}
	for _, v := range config.For(config.Portal) {
		words = append(words, v.Name)
	}
	for _, w := range words {
		if !strings.Contains(out.String(), w) {
			t.Errorf("--help does not mention %s", w)
		}
	}
}

func TestBadConfigRefusesToStart(t *testing.T) {
	var errOut bytes.Buffer
	env := func(k string) string {
		if k == "UPLOAD_MAX_BYTES" {
			return "lots"
		}
		return ""
	}
	if code := run(context.Background(), nil, env, io.Discard, &errOut); code != 2 || !strings.Contains(errOut.String(), "UPLOAD_MAX_BYTES") {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
}

func TestMainServes(t *testing.T) {
	t.Parallel()
	getenv, _ := testEnv(t)
	ctx := context.Background()
	if code := run(ctx, []string{"migrate"}, getenv, io.Discard, os.Stderr); code != 0 {
		t.Fatalf("migrate: exit %d", code)
	}
	cfg, err := parseConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := m.Run(ctx); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/healthz", "/", "/leaderboard", "/static/site.css"} {
		res, err := http.Get("http://" + m.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + m.Addr() + "/healthz"); err == nil {
		t.Fatal("still serving after Close")
	}
}

func TestSeedHouseBots(t *testing.T) {
	t.Parallel()
	getenv, dbURL := testEnv(t)
	ctx := context.Background()
	var first, second bytes.Buffer
	if code := run(ctx, []string{"seed-house-bots", "../../bots"}, getenv, &first, os.Stderr); code != 0 {
		t.Fatalf("seed: exit %d:\n%s", code, first.String())
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	counts := func() (bots, versions, jobs int) {
		t.Helper()
		err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM bots b JOIN users u ON u.id = b.owner_id WHERE b.house AND u.username = 'house'),
			(SELECT count(*) FROM bot_versions), (SELECT count(*) FROM river_job WHERE kind = 'build')`).Scan(&bots, &versions, &jobs)
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	dirs, _ := os.ReadDir("../../bots")
	bots, versions, jobs := counts()
	if bots != len(dirs) || versions != bots || jobs != bots {
		t.Fatalf("after seeding %d folders: %d house bots, %d versions, %d build jobs\n%s", len(dirs), bots, versions, jobs, first.String())
	}
	// Each starter joins its own game's ladder (the folders are named
	// game-language).
	rows, err := conn.Query(ctx, `SELECT name, game FROM bots WHERE house ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	games := map[string]bool{}
	for rows.Next() {
		var name, game string
		if err := rows.Scan(&name, &game); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(name, game+"-") {
			t.Errorf("house bot %s plays %s", name, game)
		}
		games[game] = true
	}
	if rows.Err() != nil || len(games) != 4 {
		t.Fatalf("house bots play %v (%v), want all four games", games, rows.Err())
	}
	if code := run(ctx, []string{"seed-house-bots", "../../bots"}, getenv, &second, os.Stderr); code != 0 {
		t.Fatalf("second seed: exit %d", code)
	}
	if b2, v2, j2 := counts(); b2 != bots || v2 != versions || j2 != jobs {
		t.Fatalf("seeding again added rows: %d bots, %d versions, %d jobs", b2, v2, j2)
	}
	if n := strings.Count(second.String(), "unchanged"); n != len(dirs) {
		t.Fatalf("second seed output:\n%s", second.String())
	}
}
