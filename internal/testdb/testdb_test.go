package testdb_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/testdb"
)

func TestTxIsMigratedAndRolledBack(t *testing.T) {
	ctx := context.Background()
	var userID int64
	t.Run("insert", func(t *testing.T) {
		tx := testdb.Tx(t)
		err := tx.QueryRow(ctx, `INSERT INTO users (username, password_hash) VALUES ('rolled_back_user', 'x') RETURNING id`).Scan(&userID)
		if err != nil {
			t.Fatalf("insert into migrated schema: %v", err)
		}
	})
	tx := testdb.Tx(t)
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM users WHERE id = $1`, userID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("row of a finished test still visible: %d", n)
	}
	// River's tables come with the migration.
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM river_job`).Scan(&n); err != nil {
		t.Fatalf("river tables missing: %v", err)
	}
}

func TestURLGivesOwnDatabaseDroppedAtCleanup(t *testing.T) {
	testdb.Require(t)
	ctx := context.Background()
	var a, b string
	t.Run("own", func(t *testing.T) {
		a = testdb.URL(t)
		b = testdb.URL(t)
		if a == b {
			t.Fatalf("two calls returned the same database %s", a)
		}
		conn, err := pgx.Connect(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `INSERT INTO users (username, password_hash) VALUES ('only_in_a', 'x')`); err != nil {
			t.Fatalf("insert: %v", err)
		}
		conn2, err := pgx.Connect(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		defer conn2.Close(ctx)
		var n int
		if err := conn2.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("database b sees %d users written to a", n)
		}
	})
	if conn, err := pgx.Connect(ctx, a); err == nil {
		conn.Close(ctx)
		t.Fatalf("database %s still exists after cleanup", a)
	}
}

func TestNewPool(t *testing.T) {
	pool := testdb.NewPool(t)
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM bots`).Scan(&n); err != nil {
		t.Fatalf("query fresh pool: %v", err)
	}
	if n != 0 {
		t.Fatalf("fresh database has %d bots", n)
	}
}
