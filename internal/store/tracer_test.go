package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// TestStatementCounter: every way a statement reaches the server is
// counted once: a query, an exec, a transaction's BEGIN and COMMIT, each
// query of a batch, a COPY.
func TestStatementCounter(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	var c store.StatementCounter
	cfg.ConnConfig.Tracer = &c
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	steps := []struct {
		name string
		run  func() error
		want int64
	}{
		{"query", func() error { var n int; return pool.QueryRow(ctx, `SELECT 1`).Scan(&n) }, 1},
		{"exec", func() error { _, err := pool.Exec(ctx, `CREATE TEMP TABLE t (n int)`); return err }, 1},
		{"transaction", func() error {
			return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { _, err := tx.Exec(ctx, `SELECT 1`); return err })
		}, 3},
		{"batch of two", func() error {
			b := &pgx.Batch{}
			b.Queue(`SELECT 1`)
			b.Queue(`SELECT 2`)
			return pool.SendBatch(ctx, b).Close()
		}, 2},
		{"copy", func() error {
			conn, err := pool.Acquire(ctx)
			if err != nil {
				return err
			}
			defer conn.Release()
			if _, err := conn.Exec(ctx, `CREATE TEMP TABLE IF NOT EXISTS c (n int)`); err != nil {
				return err
			}
			_, err = conn.CopyFrom(ctx, pgx.Identifier{"c"}, []string{"n"}, pgx.CopyFromRows([][]any{{1}, {2}}))
			return err
		}, 2},
	}
	for _, s := range steps {
		before := c.Count()
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := c.Count() - before; got != s.want {
			t.Errorf("%s: %d statements counted, want %d", s.name, got, s.want)
		}
	}
}
