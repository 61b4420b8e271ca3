package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// User is an account of the portal.
type User struct {
	ID           int64
	Username     string
	Email        string
	PasswordHash string
	Role         string
	CreatedAt    time.Time
}

// UserCreateParams are the fields of a new account.
type UserCreateParams struct {
	Username     string
	Email        string
	PasswordHash string
}

const userColumns = `id, username, email, password_hash, role, created_at`

func scanUser(row interface{ Scan(...any) error }) (*User, error) {
	var u User
	if err := row.Scan(&u.ID, &u.Username, &u.Email, &u.PasswordHash, &u.Role, &u.CreatedAt); err != nil {
		return nil, interpretError(err)
	}
	return &u, nil
}

// UserCreate records a new account. A username taken in any letter case
// gives ErrConflict.
func (s *Store) UserCreate(ctx context.Context, p UserCreateParams) (*User, error) {
	u, err := scanUser(s.db.QueryRow(ctx, `
		INSERT INTO users (username, email, password_hash) VALUES ($1, $2, $3)
		RETURNING `+userColumns, p.Username, p.Email, p.PasswordHash))
	if err != nil {
		return nil, fmt.Errorf("store: create user %q: %w", p.Username, err)
	}
	return u, nil
}

// UserGetByID returns an account.
func (s *Store) UserGetByID(ctx context.Context, id int64) (*User, error) {
	u, err := scanUser(s.db.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("store: get user %d: %w", id, err)
	}
	return u, nil
}

// UserGetByUsername returns the account with that username, in any letter case.
func (s *Store) UserGetByUsername(ctx context.Context, username string) (*User, error) {
	u, err := scanUser(s.db.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE lower(username) = lower($1)`, username))
	if err != nil {
		return nil, fmt.Errorf("store: get user %q: %w", username, err)
	}
	return u, nil
}

// UserEnsure returns the account with that username, creating it with an
// unusable password when missing (the house account owns the starter bots
// and never logs in).
func (s *Store) UserEnsure(ctx context.Context, username string) (*User, error) {
	u, err := scanUser(s.db.QueryRow(ctx, `
		WITH ins AS (
			INSERT INTO users (username, password_hash)
			SELECT $1, '!' WHERE NOT EXISTS (SELECT 1 FROM users WHERE lower(username) = lower($1))
			RETURNING `+userColumns+`)
		SELECT `+userColumns+` FROM ins
		UNION ALL
		SELECT `+userColumns+` FROM users WHERE lower(username) = lower($1)
		LIMIT 1`, username))
	if err != nil {
		return nil, fmt.Errorf("store: ensure user %q: %w", username, err)
	}
	return u, nil
}

// UserSetPasswordHash replaces an account's password hash.
func (s *Store) UserSetPasswordHash(ctx context.Context, userID int64, hash string) error {
	tag, err := s.db.Exec(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1`, userID, hash)
	if err != nil {
		return fmt.Errorf("store: set password of user %d: %w", userID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: set password of user %d: %w", userID, ErrNotFound)
	}
	return nil
}

// UserSetRole gives a user a role ("user" or "organiser") and records it
// in the audit log as done by the operator (no acting user).
func (s *Store) UserSetRole(ctx context.Context, username, role string) (*User, error) {
	var u *User
	err := s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		var err error
		u, err = scanUser(st.db.QueryRow(ctx, `
			UPDATE users SET role = $2 WHERE lower(username) = lower($1) RETURNING `+userColumns, username, role))
		if err != nil {
			return err
		}
		_, err = st.db.Exec(ctx, `
			INSERT INTO audit_log (action, target_type, target_id, detail) VALUES ('user.role', 'user', $1, $2)`,
			u.ID, "role set to "+role+" from the command line")
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: set role of %q: %w", username, err)
	}
	return u, nil
}
