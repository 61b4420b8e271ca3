package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// TestSchemaCheck: a migrated database passes; one behind, ahead, half
// migrated or missing the job queue's tables is refused with one line
// that says what to do.
func TestSchemaCheck(t *testing.T) {
	migrated := setup(t)
	sc, err := migrated.st.SchemaGet(migrated.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Err("portal"); err != nil {
		t.Fatalf("a migrated database: %v", err)
	}
	want := sc.Want
	tests := []struct {
		name string
		// change alters the migrated database inside the rolled-back
		// transaction.
		change  string
		wantErr string
	}{
		{"behind", `UPDATE schema_migrations SET version = 1`, fmt.Sprintf("database is at migration 1 but this portal needs %d: run `portal migrate`", want)},
		{"newer", `UPDATE schema_migrations SET version = version + 1`, fmt.Sprintf("database is at migration %d, newer than the %d this portal knows", want+1, want)},
		{"dirty", `UPDATE schema_migrations SET dirty = true`, fmt.Sprintf("database migration %d failed halfway", want)},
		{"job queue behind", `DELETE FROM river_migration WHERE version = (SELECT max(version) FROM river_migration)`,
			"database lacks the job queue's migrations"},
		{"job queue newer", `INSERT INTO river_migration (line, version) VALUES ('main', 999)`,
			"database has job queue migrations [999] that this portal does not know"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := setup(t)
			if tc.change != "" {
				if _, err := b.st.DB().Exec(b.ctx, tc.change); err != nil {
					t.Fatal(err)
				}
			}
			err := b.st.SchemaCheck(b.ctx, "portal")
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, tc.wantErr)
			}
		})
	}
}

// TestSchemaCheckEmptyDatabase: a database no migration has touched, as an
// operator's new one is.
func TestSchemaCheckEmptyDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.EmptyURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	sc, err := store.New(pool).SchemaGet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Version != 0 || sc.Want < 100 || len(sc.RiverMissing) == 0 || sc.Dirty {
		t.Fatalf("schema of an empty database: %+v", sc)
	}
	want := "database is at migration 0 but this worker needs"
	if err := sc.Err("worker"); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "run `worker migrate`") {
		t.Fatalf("error %v, want %q ... run `worker migrate`", err, want)
	}
}
