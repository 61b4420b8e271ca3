package store

import (
	"context"
	"fmt"
	"time"
)

// APIToken is a named bearer token of a user for the JSON API. Only its
// hash is kept; the token itself is shown once, when it is made.
type APIToken struct {
	ID         int64
	UserID     int64
	Name       string
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// APITokenCreate records a token.
func (s *Store) APITokenCreate(ctx context.Context, userID int64, name string, tokenHash []byte) (*APIToken, error) {
	t := APIToken{UserID: userID, Name: name}
	err := s.db.QueryRow(ctx, `
		INSERT INTO api_tokens (user_id, name, token_hash) VALUES ($1, $2, $3)
		RETURNING id, created_at`, userID, name, tokenHash).Scan(&t.ID, &t.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("store: create api token of user %d: %w", userID, interpretError(err))
	}
	return &t, nil
}

// APITokenList lists a user's tokens, newest first.
func (s *Store) APITokenList(ctx context.Context, userID int64) ([]APIToken, error) {
	rows, err := s.db.Query(ctx, `
		SELECT id, user_id, name, created_at, last_used_at FROM api_tokens
		WHERE user_id = $1 ORDER BY id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("store: list api tokens of user %d: %w", userID, err)
	}
	defer rows.Close()
	var out []APIToken
	for rows.Next() {
		var t APIToken
		if err := rows.Scan(&t.ID, &t.UserID, &t.Name, &t.CreatedAt, &t.LastUsedAt); err != nil {
			return nil, fmt.Errorf("store: list api tokens of user %d: %w", userID, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// APITokenRevoke deletes one of a user's tokens; ErrNotFound when the user
// has no token with that id.
func (s *Store) APITokenRevoke(ctx context.Context, userID, tokenID int64) error {
	tag, err := s.db.Exec(ctx, `DELETE FROM api_tokens WHERE id = $1 AND user_id = $2`, tokenID, userID)
	if err != nil {
		return fmt.Errorf("store: revoke api token %d: %w", tokenID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: revoke api token %d: %w", tokenID, ErrNotFound)
	}
	return nil
}

// APITokenUser returns the user a token hash belongs to and notes its use.
func (s *Store) APITokenUser(ctx context.Context, tokenHash []byte) (*User, error) {
	u, err := scanUser(s.db.QueryRow(ctx, `
		WITH t AS (UPDATE api_tokens SET last_used_at = now() WHERE token_hash = $1 RETURNING user_id)
		SELECT u.id, u.username, u.email, u.password_hash, u.role, u.created_at
		FROM users u JOIN t ON t.user_id = u.id`, tokenHash))
	if err != nil {
		return nil, fmt.Errorf("store: user of api token: %w", err)
	}
	return u, nil
}
