package store

import (
	"context"
	"fmt"
	"time"
)

// AuditEntry is one admin action.
type AuditEntry struct {
	ID         int64
	ActorID    *int64
	ActorName  string
	Action     string
	TargetType string
	TargetID   *int64
	Detail     string
	CreatedAt  time.Time
}

// AuditAdd records an admin action.
func (s *Store) AuditAdd(ctx context.Context, actorID int64, action, targetType string, targetID int64, detail string) error {
	_, err := s.db.Exec(ctx, `
		INSERT INTO audit_log (actor_id, action, target_type, target_id, detail) VALUES ($1, $2, $3, $4, $5)`,
		actorID, action, targetType, targetID, detail)
	if err != nil {
		return fmt.Errorf("store: audit %s: %w", action, err)
	}
	return nil
}

// AuditList returns the newest audit entries.
func (s *Store) AuditList(ctx context.Context, limit int) ([]AuditEntry, error) {
	rows, err := s.db.Query(ctx, `
		SELECT a.id, a.actor_id, coalesce(u.username, ''), a.action, a.target_type, a.target_id, a.detail, a.created_at
		FROM audit_log a LEFT JOIN users u ON u.id = a.actor_id
		ORDER BY a.id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list audit log: %w", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		if err := rows.Scan(&e.ID, &e.ActorID, &e.ActorName, &e.Action, &e.TargetType, &e.TargetID, &e.Detail, &e.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: list audit log: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

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

// SettingGet returns a platform setting, or def when unset.
func (s *Store) SettingGet(ctx context.Context, key, def string) (string, error) {
	var v string
	err := s.db.QueryRow(ctx, `SELECT value FROM platform_settings WHERE key = $1`, key).Scan(&v)
	if err != nil {
		if err = interpretError(err); err == ErrNotFound {
			return def, nil
		}
		return "", fmt.Errorf("store: get setting %s: %w", key, err)
	}
	return v, nil
}

// SettingSet stores a platform setting.
func (s *Store) SettingSet(ctx context.Context, key, value string) error {
	_, err := s.db.Exec(ctx, `
		INSERT INTO platform_settings (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, key, value)
	if err != nil {
		return fmt.Errorf("store: set setting %s: %w", key, err)
	}
	return nil
}

// QueueDepth counts matches waiting to be played, by kind.
func (s *Store) QueueDepth(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.Query(ctx, `SELECT kind, count(*) FROM matches WHERE status IN ('queued', 'running') GROUP BY kind`)
	if err != nil {
		return nil, fmt.Errorf("store: queue depth: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, fmt.Errorf("store: queue depth: %w", err)
		}
		out[k] = n
	}
	return out, rows.Err()
}
