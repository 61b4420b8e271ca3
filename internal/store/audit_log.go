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
