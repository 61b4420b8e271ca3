package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// NotifyEmail is a user's address for notifications and the events sent
// to it. Nothing is sent before VerifiedAt is set.
type NotifyEmail struct {
	UserID           int64
	Address          string
	VerifiedAt       *time.Time
	VerifySentAt     *time.Time
	UnsubscribeToken string
	Events           []string
}

const notifyEmailSelect = `SELECT user_id, address, verified_at, verify_sent_at, unsubscribe_token, events FROM notify_email`

func scanNotifyEmail(row interface{ Scan(...any) error }) (*NotifyEmail, error) {
	var e NotifyEmail
	if err := row.Scan(&e.UserID, &e.Address, &e.VerifiedAt, &e.VerifySentAt, &e.UnsubscribeToken, &e.Events); err != nil {
		return nil, interpretError(err)
	}
	return &e, nil
}

// NotifyEmailGet returns a user's notification address; ErrNotFound when
// they set none.
func (s *Store) NotifyEmailGet(ctx context.Context, userID int64) (*NotifyEmail, error) {
	e, err := scanNotifyEmail(s.db.QueryRow(ctx, notifyEmailSelect+` WHERE user_id = $1`, userID))
	if err != nil {
		return nil, fmt.Errorf("store: get notification e-mail of user %d: %w", userID, err)
	}
	return e, nil
}

// ErrTooSoon refuses a new address within a minute of the last one, so
// an account cannot make the platform mail one address after another.
var ErrTooSoon = errors.New("store: too soon after the last verification")

// NotifyEmailSet sets a user's address, unverified, with a new
// verification token (its hash) and unsubscribe token. The events chosen
// before are kept. Within a minute of the last one it is ErrTooSoon.
func (s *Store) NotifyEmailSet(ctx context.Context, userID int64, address string, verifyHash []byte, unsubscribe string) error {
	tag, err := s.db.Exec(ctx, `
		INSERT INTO notify_email (user_id, address, verify_token_hash, verify_sent_at, unsubscribe_token)
		VALUES ($1, $2, $3, now(), $4)
		ON CONFLICT (user_id) DO UPDATE SET address = $2, verified_at = NULL, verify_token_hash = $3,
		       verify_sent_at = now(), unsubscribe_token = $4, updated_at = now()
		WHERE notify_email.verify_sent_at IS NULL OR notify_email.verify_sent_at < now() - interval '1 minute'`,
		userID, address, verifyHash, unsubscribe)
	if err != nil {
		return fmt.Errorf("store: set notification e-mail of user %d: %w", userID, interpretError(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: set notification e-mail of user %d: %w", userID, ErrTooSoon)
	}
	return nil
}

// NotifyEmailSetEvents sets which events are sent to the user's address.
func (s *Store) NotifyEmailSetEvents(ctx context.Context, userID int64, events []string) error {
	tag, err := s.db.Exec(ctx, `UPDATE notify_email SET events = $2, updated_at = now() WHERE user_id = $1`, userID, events)
	if err != nil {
		return fmt.Errorf("store: set e-mail events of user %d: %w", userID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: set e-mail events of user %d: %w", userID, ErrNotFound)
	}
	return nil
}

// NotifyEmailVerify marks the address whose verification token hashes to
// verifyHash verified; ErrNotFound when no pending verification has it.
func (s *Store) NotifyEmailVerify(ctx context.Context, verifyHash []byte) (*NotifyEmail, error) {
	e, err := scanNotifyEmail(s.db.QueryRow(ctx, `
		UPDATE notify_email SET verified_at = now(), verify_token_hash = NULL, updated_at = now()
		WHERE verify_token_hash = $1
		RETURNING user_id, address, verified_at, verify_sent_at, unsubscribe_token, events`, verifyHash))
	if err != nil {
		return nil, fmt.Errorf("store: verify notification e-mail: %w", err)
	}
	return e, nil
}

// NotifyEmailByUnsubscribe returns the address of an unsubscribe token.
func (s *Store) NotifyEmailByUnsubscribe(ctx context.Context, token string) (*NotifyEmail, error) {
	e, err := scanNotifyEmail(s.db.QueryRow(ctx, notifyEmailSelect+` WHERE unsubscribe_token = $1`, token))
	if err != nil {
		return nil, fmt.Errorf("store: notification e-mail by unsubscribe token: %w", err)
	}
	return e, nil
}

// NotifyEmailUnsubscribe stops every e-mail to the address of an
// unsubscribe token.
func (s *Store) NotifyEmailUnsubscribe(ctx context.Context, token string) error {
	tag, err := s.db.Exec(ctx, `UPDATE notify_email SET events = '{}', updated_at = now() WHERE unsubscribe_token = $1`, token)
	if err != nil {
		return fmt.Errorf("store: unsubscribe: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: unsubscribe: %w", ErrNotFound)
	}
	return nil
}

// NotifyEmailDelete forgets a user's notification address.
func (s *Store) NotifyEmailDelete(ctx context.Context, userID int64) error {
	if _, err := s.db.Exec(ctx, `DELETE FROM notify_email WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("store: delete notification e-mail of user %d: %w", userID, err)
	}
	return nil
}

// NotifyEmailSetVerifyToken keeps the hash of a new verification token
// for the user's address, when it is still address and unverified; ok is
// false otherwise (changed or verified since).
func (s *Store) NotifyEmailSetVerifyToken(ctx context.Context, userID int64, address string, verifyHash []byte) (ok bool, err error) {
	tag, err := s.db.Exec(ctx, `
		UPDATE notify_email SET verify_token_hash = $3, verify_sent_at = now()
		WHERE user_id = $1 AND address = $2 AND verified_at IS NULL`, userID, address, verifyHash)
	if err != nil {
		return false, fmt.Errorf("store: verification token of user %d: %w", userID, err)
	}
	return tag.RowsAffected() == 1, nil
}
