// Package testdb gives tests an isolated, migrated Postgres database.
//
// Store tests take Tx: a transaction on a shared per-process database,
// rolled back at cleanup. Tests that span processes (a worker binary, the
// portal, a browser) take URL or NewPool: a fresh database of their own,
// copied from a migrated template (CREATE DATABASE ... TEMPLATE, a file
// copy, far faster than migrating) and dropped at cleanup.
//
// The server is TEST_DATABASE_URL when set, else a Postgres container
// started once per test process through testcontainers-go.
package testdb

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testenv"
	"github.com/broadside/broadside/migrations"
)

// EnvURL names the variable pointing at the test Postgres server.
const EnvURL = "TEST_DATABASE_URL"

// staleAfter is how old a leftover per-process database must be before a
// later test run drops it (its process is long gone by then).
const staleAfter = 2 * time.Hour

// server is the per-process state: test helpers cannot take it as an
// argument, so it lives here, set up once.
type server struct {
	once     sync.Once
	err      error
	noServer bool   // neither TEST_DATABASE_URL nor a container
	adminURL string // the server's maintenance database
	template string // name of the migrated template database

	txOnce sync.Once
	txErr  error
	txPool *pgxpool.Pool
}

var srv server

// Tx returns a transaction on a migrated database, rolled back when the test
// ends, so tests may run in parallel and leave nothing behind.
func Tx(t testing.TB) pgx.Tx {
	t.Helper()
	pool := sharedPool(t)
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatalf("testdb: begin: %v", err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	return tx
}

// URL returns the connection URL of a fresh migrated database used by this
// test alone. It is dropped at cleanup, with any connections still open.
func URL(t testing.TB) string {
	t.Helper()
	setup(t)
	ctx := context.Background()
	name := newName("broadside_test")
	if err := createFromTemplate(ctx, srv.adminURL, name, srv.template); err != nil {
		t.Fatalf("testdb: %v", err)
	}
	t.Cleanup(func() {
		if err := adminExec(context.Background(), srv.adminURL,
			"DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Logf("testdb: drop %s: %v", name, err)
		}
	})
	return withDatabase(srv.adminURL, name)
}

// NewDatabase is URL under the name the process-spanning tests read best.
func NewDatabase(t testing.TB) string {
	t.Helper()
	return URL(t)
}

// NewPool returns a pool on a fresh migrated database of this test's own,
// closed and dropped at cleanup.
func NewPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	u := URL(t)
	pool, err := pgxpool.New(context.Background(), u)
	if err != nil {
		t.Fatalf("testdb: connect: %v", err)
	}
	t.Cleanup(pool.Close) // registered after the drop, so it runs first
	return pool
}

// Require stops the test when there is no server to test against: it
// skips, or fails where testenv.RequireAll is set. For a test whose
// subtests take the databases and whose own checks need them too.
func Require(t testing.TB) {
	t.Helper()
	setup(t)
}

// EmptyURL returns the connection URL of a fresh database with no
// migration applied, as an operator's new database is before the first
// `portal migrate`. It is dropped at cleanup.
func EmptyURL(t testing.TB) string {
	t.Helper()
	setup(t)
	name := newName("broadside_test")
	if err := adminExec(context.Background(), srv.adminURL,
		"CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE template0"); err != nil {
		t.Fatalf("testdb: create empty database: %v", err)
	}
	t.Cleanup(func() {
		if err := adminExec(context.Background(), srv.adminURL,
			"DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Logf("testdb: drop %s: %v", name, err)
		}
	})
	return withDatabase(srv.adminURL, name)
}

func sharedPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	setup(t)
	srv.txOnce.Do(func() {
		ctx := context.Background()
		name := newName("broadside_tx")
		if err := createFromTemplate(ctx, srv.adminURL, name, srv.template); err != nil {
			srv.txErr = err
			return
		}
		srv.txPool, srv.txErr = pgxpool.New(ctx, withDatabase(srv.adminURL, name))
	})
	if srv.txErr != nil {
		t.Fatalf("testdb: shared database: %v", srv.txErr)
	}
	return srv.txPool
}

func setup(t testing.TB) {
	t.Helper()
	srv.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		srv.adminURL, srv.err = serverURL(ctx)
		if srv.err != nil {
			srv.noServer = true
			return
		}
		srv.template, srv.err = ensureTemplate(ctx, srv.adminURL)
	})
	// No server at all is the machine's lack; a server that refuses the
	// migrations is a fault of ours.
	testenv.Require(t, "PostgreSQL", !srv.noServer, fmt.Sprint(srv.err))
	if srv.err != nil {
		t.Fatalf("testdb: %v", srv.err)
	}
}

func serverURL(ctx context.Context) (string, error) {
	if u := os.Getenv(EnvURL); u != "" {
		return u, nil
	}
	ctr, err := tcpostgres.Run(ctx, "postgres:16-alpine",
		tcpostgres.WithDatabase("postgres"),
		tcpostgres.WithUsername("postgres"),
		tcpostgres.WithPassword("postgres"),
		tcpostgres.BasicWaitStrategies(),
	)
	if err != nil {
		return "", fmt.Errorf("start postgres container (set %s to use a running server): %w", EnvURL, err)
	}
	// The container is removed by testcontainers' reaper when the process exits.
	return ctr.ConnectionString(ctx, "sslmode=disable")
}

// ensureTemplate makes sure a template database migrated to the current
// migrations exists and returns its name. The name carries a hash of the
// migrations, so a changed migration gets a new template and test processes
// of different checkouts never share a stale one. Creation runs under an
// advisory lock because test binaries of several packages start together.
func ensureTemplate(ctx context.Context, adminURL string) (string, error) {
	hash, err := migrationsHash()
	if err != nil {
		return "", err
	}
	name := "broadside_tpl_" + hash
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", EnvURL, err)
	}
	defer conn.Close(ctx)
	const lockKey = 0x62726f61 // "broa"
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return "", fmt.Errorf("lock template: %w", err)
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", lockKey) //nolint:errcheck // released on close anyway

	dropStale(ctx, conn)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", fmt.Errorf("look up template: %w", err)
	}
	if exists {
		return name, nil
	}
	// Build under a temporary name and rename when complete, so a process
	// killed mid-migration never leaves a half-migrated template behind.
	building := name + "_building"
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{building}.Sanitize()+" WITH (FORCE)"); err != nil {
		return "", fmt.Errorf("drop leftover template: %w", err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{building}.Sanitize()); err != nil {
		return "", fmt.Errorf("create template: %w", err)
	}
	if err := store.Migrate(ctx, withDatabase(adminURL, building)); err != nil {
		return "", fmt.Errorf("migrate template: %w", err)
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{building}.Sanitize()+" RENAME TO "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("finish template: %w", err)
	}
	return name, nil
}

// dropStale removes per-process and per-test databases left by test
// processes that were killed before their cleanup ran. The creation time
// is part of each name; a database still in use refuses the drop.
func dropStale(ctx context.Context, conn *pgx.Conn) {
	rows, err := conn.Query(ctx, `SELECT datname FROM pg_database
		WHERE datname LIKE 'broadside\_tx\_%' OR datname LIKE 'broadside\_test\_%'`)
	if err != nil {
		return
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, n := range names {
		parts := strings.Split(n, "_")
		if len(parts) < 4 {
			continue
		}
		created, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil || time.Since(time.Unix(created, 0)) < staleAfter {
			continue
		}
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{n}.Sanitize())
	}
}

// createFromTemplate copies the template. Postgres refuses the copy for a
// moment while another session is connected to the template (a concurrent
// copy), so it retries briefly.
func createFromTemplate(ctx context.Context, adminURL, name, template string) error {
	sql := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize() + " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	var err error
	for i := 0; i < 50; i++ {
		if err = adminExec(ctx, adminURL, sql); err == nil {
			return nil
		}
		if !strings.Contains(err.Error(), "being accessed by other users") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("create database %s from template: %w", name, err)
}

func adminExec(ctx context.Context, adminURL, sql string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// migrationsHash identifies the schema: our migration files and River's
// version (its migrations come with it).
func migrationsHash() (string, error) {
	h := sha256.New()
	entries, err := fs.ReadDir(migrations.FS, ".")
	if err != nil {
		return "", fmt.Errorf("read migrations: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		data, err := fs.ReadFile(migrations.FS, n)
		if err != nil {
			return "", fmt.Errorf("read migration %s: %w", n, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(data))
		h.Write(data)
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if strings.HasPrefix(dep.Path, "github.com/riverqueue/river") {
				fmt.Fprintf(h, "%s@%s\x00", dep.Path, dep.Version)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// newName returns prefix_<unix time>_<random>, lower case as Postgres
// folds unquoted names.
func newName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s_%d_%s", prefix, time.Now().Unix(), hex.EncodeToString(b))
}

// withDatabase returns the server URL pointing at another database.
func withDatabase(serverURL, name string) string {
	u, err := url.Parse(serverURL)
	if err != nil || u.Scheme == "" {
		// A keyword/value connection string: append the dbname, which wins.
		return serverURL + " dbname=" + name
	}
	u.Path = "/" + name
	return u.String()
}
