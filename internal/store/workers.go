package store

import (
	"context"
	"fmt"
	"time"
)

// WorkerHeartbeat is a worker's last sign of life.
type WorkerHeartbeat struct {
	WorkerID   string
	Hostname   string
	StartedAt  time.Time
	LastSeenAt time.Time
	// Running is how many queue jobs (matches, builds, ticks) the worker
	// holds now, read from the queue itself when listing.
	Running int
	Sandbox string
}

// WorkerBeat records that a worker is alive.
func (s *Store) WorkerBeat(ctx context.Context, h WorkerHeartbeat) error {
	_, err := s.db.Exec(ctx, `
		INSERT INTO worker_heartbeats (worker_id, hostname, started_at, last_seen_at, sandbox)
		VALUES ($1, $2, $3, now(), $4)
		ON CONFLICT (worker_id) DO UPDATE
		SET last_seen_at = now(), sandbox = EXCLUDED.sandbox`,
		h.WorkerID, h.Hostname, h.StartedAt, h.Sandbox)
	if err != nil {
		return fmt.Errorf("store: heartbeat of worker %s: %w", h.WorkerID, err)
	}
	return nil
}

// WorkerForget deletes the heartbeats of workers silent since before.
func (s *Store) WorkerForget(ctx context.Context, before time.Time) error {
	if _, err := s.db.Exec(ctx, `DELETE FROM worker_heartbeats WHERE last_seen_at < $1`, before); err != nil {
		return fmt.Errorf("store: forget old workers: %w", err)
	}
	return nil
}
