package store

import (
	"context"
	"fmt"
	"time"
)

// PeriodicRun is the last run of one periodic job.
type PeriodicRun struct {
	Name           string
	Interval       time.Duration
	Runs           int64
	LastStartedAt  *time.Time
	LastFinishedAt *time.Time
	LastError      string
	UpdatedAt      time.Time
}

// NextRun is when the job is due next: an interval after its last start,
// or after it was registered when it never ran.
func (p PeriodicRun) NextRun() time.Time {
	if p.LastStartedAt != nil {
		return p.LastStartedAt.Add(p.Interval)
	}
	return p.UpdatedAt.Add(p.Interval)
}

// Overdue reports whether the job has not finished a run for three
// intervals: the sign that the season stopped running by itself.
func (p PeriodicRun) Overdue(now time.Time) bool {
	last := p.UpdatedAt
	if p.LastFinishedAt != nil && p.LastFinishedAt.After(last) {
		last = *p.LastFinishedAt
	}
	return now.Sub(last) > 3*p.Interval
}

// PeriodicRegister records that a periodic job runs at interval. A worker
// calls it at start; registering again keeps the job's history.
func (s *Store) PeriodicRegister(ctx context.Context, name string, interval time.Duration) error {
	_, err := s.db.Exec(ctx, `
		INSERT INTO periodic_runs (name, interval_ms) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE
		SET interval_ms = EXCLUDED.interval_ms,
		    updated_at = CASE WHEN periodic_runs.interval_ms = EXCLUDED.interval_ms
		                      THEN periodic_runs.updated_at ELSE now() END`,
		name, interval.Milliseconds())
	if err != nil {
		return fmt.Errorf("store: register periodic job %s: %w", name, err)
	}
	return nil
}

// PeriodicStarted records the start of a run.
func (s *Store) PeriodicStarted(ctx context.Context, name string) error {
	_, err := s.db.Exec(ctx, `
		UPDATE periodic_runs SET last_started_at = now() WHERE name = $1`, name)
	if err != nil {
		return fmt.Errorf("store: periodic job %s started: %w", name, err)
	}
	return nil
}

// PeriodicFinished records the end of a run and its error, if any.
func (s *Store) PeriodicFinished(ctx context.Context, name, runErr string) error {
	_, err := s.db.Exec(ctx, `
		UPDATE periodic_runs SET last_finished_at = now(), runs = runs + 1, last_error = $2
		WHERE name = $1`, name, runErr)
	if err != nil {
		return fmt.Errorf("store: periodic job %s finished: %w", name, err)
	}
	return nil
}

// PeriodicList lists every periodic job by name.
func (s *Store) PeriodicList(ctx context.Context) ([]PeriodicRun, error) {
	rows, err := s.db.Query(ctx, `
		SELECT name, interval_ms, runs, last_started_at, last_finished_at, last_error, updated_at
		FROM periodic_runs ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("store: list periodic jobs: %w", err)
	}
	defer rows.Close()
	var out []PeriodicRun
	for rows.Next() {
		var p PeriodicRun
		var ms int64
		if err := rows.Scan(&p.Name, &ms, &p.Runs, &p.LastStartedAt, &p.LastFinishedAt, &p.LastError, &p.UpdatedAt); err != nil {
			return nil, fmt.Errorf("store: list periodic jobs: %w", err)
		}
		p.Interval = time.Duration(ms) * time.Millisecond
		out = append(out, p)
	}
	return out, rows.Err()
}
