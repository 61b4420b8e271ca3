package store

import (
	"context"
	"fmt"
	"time"
)

// RatingCheck is one run of the nightly check that recomputes every rating
// from history and compares it with the stored table.
type RatingCheck struct {
	ID          int64
	CheckedAt   time.Time
	Matches     int
	Bots        int
	Differences int
	// Detail names the first bots that differ.
	Detail string
	// Error is set when the check could not run to its end.
	Error string
}

// Alarm reports whether the check found the stored ratings wrong or could
// not tell.
func (c RatingCheck) Alarm() bool { return c.Differences > 0 || c.Error != "" }

// RatingCheckRecord records a run of the rating check.
func (s *Store) RatingCheckRecord(ctx context.Context, c RatingCheck) error {
	_, err := s.db.Exec(ctx, `
		INSERT INTO rating_checks (matches, bots, differences, detail, error) VALUES ($1, $2, $3, $4, $5)`,
		c.Matches, c.Bots, c.Differences, c.Detail, c.Error)
	if err != nil {
		return fmt.Errorf("store: record rating check: %w", err)
	}
	return nil
}

// RatingCheckLatest returns the latest run of the rating check, or
// ErrNotFound before the first.
func (s *Store) RatingCheckLatest(ctx context.Context) (*RatingCheck, error) {
	var c RatingCheck
	err := s.db.QueryRow(ctx, `
		SELECT id, checked_at, matches, bots, differences, detail, error FROM rating_checks ORDER BY id DESC LIMIT 1`).
		Scan(&c.ID, &c.CheckedAt, &c.Matches, &c.Bots, &c.Differences, &c.Detail, &c.Error)
	if err != nil {
		return nil, fmt.Errorf("store: latest rating check: %w", interpretError(err))
	}
	return &c, nil
}
