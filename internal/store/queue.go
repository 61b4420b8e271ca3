package store

import (
	"context"
	"fmt"
)

// QueueCount is how many jobs of one kind are in one state of River's
// queue.
type QueueCount struct {
	Kind  string
	State string
	Count int64
}

// JobQueueDepth counts the jobs waiting (available, scheduled, retryable) or
// running, by kind: what an autoscaler sizes the workers by. It reads
// River's own table, whose states are River's (pinned by its migrations).
func (s *Store) JobQueueDepth(ctx context.Context) ([]QueueCount, error) {
	rows, err := s.db.Query(ctx, `
		SELECT kind, state::text, count(*)
		FROM river_job
		WHERE state IN ('available', 'scheduled', 'retryable', 'running')
		GROUP BY kind, state
		ORDER BY kind, state`)
	if err != nil {
		return nil, fmt.Errorf("store: queue depth: %w", err)
	}
	defer rows.Close()
	var out []QueueCount
	for rows.Next() {
		var c QueueCount
		if err := rows.Scan(&c.Kind, &c.State, &c.Count); err != nil {
			return nil, fmt.Errorf("store: queue depth: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: queue depth: %w", err)
	}
	return out, nil
}
