package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/broadside/broadside/internal/event"
)

// NotifyEvent is a published event as stored.
type NotifyEvent struct {
	ID        int64
	UserID    int64
	Type      event.Type
	Data      json.RawMessage
	CreatedAt time.Time
}

// EventPublish records ev for delivery. Called on a Store inside the
// transaction of the change ev tells of, it lands or vanishes with it.
func (s *Store) EventPublish(ctx context.Context, ev event.Event) error {
	if !ev.Type.Valid() {
		return fmt.Errorf("store: publish event: unknown type %q", ev.Type)
	}
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return fmt.Errorf("store: publish %s event: %w", ev.Type, err)
	}
	if _, err := s.db.Exec(ctx, `INSERT INTO notify_events (user_id, type, data) VALUES ($1, $2, $3)`,
		ev.UserID, string(ev.Type), data); err != nil {
		return fmt.Errorf("store: publish %s event for user %d: %w", ev.Type, ev.UserID, err)
	}
	return nil
}

// notifyEventsChannel is the channel on which every insert into
// notify_events is announced at its commit (migration 0280).
const notifyEventsChannel = "notify_events"

// EventsListen holds one connection listening for new events and calls fn
// for each announcement, and once when it starts listening (an event
// committed before is not announced), until ctx ends or the connection
// fails.
func (s *Store) EventsListen(ctx context.Context, fn func()) error {
	return s.listenReady(ctx, notifyEventsChannel, fn, func([]byte) { fn() })
}

// EventsPending reports whether any event waits to be dispatched.
func (s *Store) EventsPending(ctx context.Context) (bool, error) {
	var pending bool
	err := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM notify_events WHERE dispatched_at IS NULL)`).Scan(&pending)
	if err != nil {
		return false, fmt.Errorf("store: pending events: %w", err)
	}
	return pending, nil
}

// EventsTakePending locks up to limit events not yet dispatched, oldest
// first, skipping those another dispatcher holds. Call it in a
// transaction that marks them dispatched (EventsMarkDispatched).
func (s *Store) EventsTakePending(ctx context.Context, limit int) ([]NotifyEvent, error) {
	rows, err := s.db.Query(ctx, `
		SELECT id, user_id, type, data, created_at FROM notify_events
		WHERE dispatched_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: take pending events: %w", err)
	}
	defer rows.Close()
	var out []NotifyEvent
	for rows.Next() {
		var e NotifyEvent
		if err := rows.Scan(&e.ID, &e.UserID, &e.Type, &e.Data, &e.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: take pending events: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// EventsMarkDispatched marks events handed to their deliveries.
func (s *Store) EventsMarkDispatched(ctx context.Context, ids []int64) error {
	if _, err := s.db.Exec(ctx, `UPDATE notify_events SET dispatched_at = now() WHERE id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("store: mark events dispatched: %w", err)
	}
	return nil
}

// EventGetByID returns one event.
func (s *Store) EventGetByID(ctx context.Context, id int64) (*NotifyEvent, error) {
	var e NotifyEvent
	err := s.db.QueryRow(ctx, `SELECT id, user_id, type, data, created_at FROM notify_events WHERE id = $1`, id).
		Scan(&e.ID, &e.UserID, &e.Type, &e.Data, &e.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("store: get event %d: %w", id, interpretError(err))
	}
	return &e, nil
}

// EventsDeleteBefore deletes dispatched events older than t, with their
// delivery records.
func (s *Store) EventsDeleteBefore(ctx context.Context, t time.Time) (int64, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM notify_events WHERE dispatched_at IS NOT NULL AND created_at < $1`, t)
	if err != nil {
		return 0, fmt.Errorf("store: delete old events: %w", err)
	}
	return tag.RowsAffected(), nil
}
