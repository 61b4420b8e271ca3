package store

import (
	"context"
	"fmt"
	"time"
)

// Session is a signed-in browser. Only the hash of its cookie token is kept,
// so a copy of the table does not let anyone sign in.
type Session struct {
	TokenHash []byte
	CSRFToken string
	ExpiresAt time.Time
	User      User
}

// SessionCreate records a session for a user.
func (s *Store) SessionCreate(ctx context.Context, tokenHash []byte, userID int64, csrfToken string, expiresAt time.Time) error {
	_, err := s.db.Exec(ctx, `
		INSERT INTO sessions (token_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)`,
		tokenHash, userID, csrfToken, expiresAt)
	if err != nil {
		return fmt.Errorf("store: create session of user %d: %w", userID, interpretError(err))
	}
	return nil
}

// SessionGet returns the unexpired session with that token hash and its user.
func (s *Store) SessionGet(ctx context.Context, tokenHash []byte) (*Session, error) {
	var se Session
	u := &se.User
	err := s.db.QueryRow(ctx, `
		SELECT s.token_hash, s.csrf_token, s.expires_at,
		       u.id, u.username, u.email, u.password_hash, u.role, u.created_at
		FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = $1 AND s.expires_at > now()`, tokenHash).
		Scan(&se.TokenHash, &se.CSRFToken, &se.ExpiresAt,
			&u.ID, &u.Username, &u.Email, &u.PasswordHash, &u.Role, &u.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("store: get session: %w", interpretError(err))
	}
	return &se, nil
}

// SessionDelete ends a session; ending one that does not exist is not an error.
func (s *Store) SessionDelete(ctx context.Context, tokenHash []byte) error {
	if _, err := s.db.Exec(ctx, `DELETE FROM sessions WHERE token_hash = $1`, tokenHash); err != nil {
		return fmt.Errorf("store: delete session: %w", err)
	}
	return nil
}

// SessionDeleteExpired removes sessions past their expiry and returns how many.
func (s *Store) SessionDeleteExpired(ctx context.Context) (int64, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= now()`)
	if err != nil {
		return 0, fmt.Errorf("store: delete expired sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}
