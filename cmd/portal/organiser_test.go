package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/store"
)

// TestMakeOrganiser: the subcommand gives an existing account the role and
// audits it, needing no BLOB_URL; an unknown or missing username is
// refused.
func TestMakeOrganiser(t *testing.T) {
	getenv, _ := testEnv(t)
	ctx := context.Background()
	if code := run(ctx, []string{"migrate"}, getenv, io.Discard, io.Discard); code != 0 {
		t.Fatalf("migrate: exit %d", code)
	}
	pool, err := pgxpool.New(ctx, getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st := store.New(pool)
	if _, err := st.UserEnsure(ctx, "Olga"); err != nil {
		t.Fatal(err)
	}
	// As an operator runs it by hand after `make run`: with the database's
	// address only, since it never touches the blob store.
	noBlobs := func(name string) string {
		if name == "BLOB_URL" {
			return ""
		}
		return getenv(name)
	}
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"make-organiser", "olga"}, noBlobs, &out, &errOut); code != 0 {
		t.Fatalf("make-organiser olga without BLOB_URL: exit %d\n%s", code, errOut.String())
	}
	errOut.Reset()
	if code := run(ctx, []string{"seed-house-bots", t.TempDir()}, noBlobs, io.Discard, &errOut); code != 2 || !strings.Contains(errOut.String(), "BLOB_URL is required") {
		t.Errorf("seed-house-bots without BLOB_URL: exit %d, want 2 naming BLOB_URL:\n%s", code, errOut.String())
	}
	u, err := st.UserGetByUsername(ctx, "Olga")
	if err != nil || u.Role != "organiser" {
		t.Fatalf("Olga's role: %v %v", u, err)
	}
	audit, err := st.AuditList(ctx, 10)
	if err != nil || len(audit) != 1 || audit[0].Action != "user.role" {
		t.Errorf("audit log %+v (%v), want one role change", audit, err)
	}
	for _, args := range [][]string{{"make-organiser", "nobody"}, {"make-organiser"}} {
		if code := run(ctx, args, getenv, io.Discard, io.Discard); code != 1 {
			t.Errorf("%v: exit %d, want 1", args, code)
		}
	}
}
