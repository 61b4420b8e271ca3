package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/store"
)

func TestUserSessionToken(t *testing.T) {
	t.Run("usernames are unique in any letter case", func(t *testing.T) {
		b := setup(t)
		u, err := b.st.UserCreate(b.ctx, store.UserCreateParams{Username: "Alice", PasswordHash: "h"})
		if err != nil {
			t.Fatal(err)
		}
		// A failed insert aborts a transaction: try it inside a savepoint.
		sp, err := b.st.DB().(pgx.Tx).Begin(b.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.NewTx(sp).UserCreate(b.ctx, store.UserCreateParams{Username: "alice", PasswordHash: "h"}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second alice: got %v, want ErrConflict", err)
		}
		if err := sp.Rollback(b.ctx); err != nil {
			t.Fatal(err)
		}
		got, err := b.st.UserGetByUsername(b.ctx, "ALICE")
		if err != nil || got.ID != u.ID || got.Role != "user" {
			t.Fatalf("get ALICE = %+v, %v; want user %d", got, err, u.ID)
		}
		if _, err := b.st.UserGetByUsername(b.ctx, "bob"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("get bob: got %v, want ErrNotFound", err)
		}
	})
	t.Run("UserEnsure creates once", func(t *testing.T) {
		b := setup(t)
		u1, err := b.st.UserEnsure(b.ctx, "house")
		if err != nil {
			t.Fatal(err)
		}
		u2, err := b.st.UserEnsure(b.ctx, "House")
		if err != nil || u2.ID != u1.ID {
			t.Fatalf("second ensure = %+v, %v; want user %d", u2, err, u1.ID)
		}
	})
	t.Run("sessions expire and end", func(t *testing.T) {
		b := setup(t)
		u, err := b.st.UserCreate(b.ctx, store.UserCreateParams{Username: "carol", PasswordHash: "h"})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.st.SessionCreate(b.ctx, []byte("live"), u.ID, "csrf", time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := b.st.SessionCreate(b.ctx, []byte("old"), u.ID, "csrf", time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		s, err := b.st.SessionGet(b.ctx, []byte("live"))
		if err != nil || s.User.ID != u.ID || s.CSRFToken != "csrf" {
			t.Fatalf("live session = %+v, %v", s, err)
		}
		if _, err := b.st.SessionGet(b.ctx, []byte("old")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("expired session: got %v, want ErrNotFound", err)
		}
		if n, err := b.st.SessionDeleteExpired(b.ctx); err != nil || n < 1 {
			t.Fatalf("delete expired = %d, %v", n, err)
		}
		if err := b.st.SessionDelete(b.ctx, []byte("live")); err != nil {
			t.Fatal(err)
		}
		if _, err := b.st.SessionGet(b.ctx, []byte("live")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted session: got %v, want ErrNotFound", err)
		}
	})
	t.Run("api tokens authenticate until revoked, by their owner only", func(t *testing.T) {
		b := setup(t)
		u, err := b.st.UserCreate(b.ctx, store.UserCreateParams{Username: "dave", PasswordHash: "h"})
		if err != nil {
			t.Fatal(err)
		}
		other := b.user(t)
		tok, err := b.st.APITokenCreate(b.ctx, u.ID, "ci", []byte("hash"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.st.APITokenUser(b.ctx, []byte("hash"))
		if err != nil || got.ID != u.ID {
			t.Fatalf("token user = %+v, %v", got, err)
		}
		list, err := b.st.APITokenList(b.ctx, u.ID)
		if err != nil || len(list) != 1 || list[0].LastUsedAt == nil {
			t.Fatalf("list = %+v, %v; want one used token", list, err)
		}
		if err := b.st.APITokenRevoke(b.ctx, other, tok.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoke by another user: got %v, want ErrNotFound", err)
		}
		if err := b.st.APITokenRevoke(b.ctx, u.ID, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := b.st.APITokenUser(b.ctx, []byte("hash")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoked token: got %v, want ErrNotFound", err)
		}
	})
}
