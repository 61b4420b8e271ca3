package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// BuildLogChunk is a piece of the log of a build in progress.
type BuildLogChunk struct {
	Seq  int
	Text string
}

// BuildEvent is a notification on the build_events channel: a log chunk
// written (Seq set) or a build status written (Status set).
type BuildEvent struct {
	Version int64  `json:"version"`
	Seq     *int   `json:"seq,omitempty"`
	Status  string `json:"status,omitempty"`
}

// buildEventsChannel is the channel the build_events_notify trigger and
// BuildLogAppend announce on.
const buildEventsChannel = "build_events"

// BuildLogAppend records a chunk of the log of a build in progress and
// announces it, in one statement; nothing is written once the build is
// over. A chunk written again replaces the first.
func (s *Store) BuildLogAppend(ctx context.Context, versionID int64, c BuildLogChunk) error {
	_, err := s.db.Exec(ctx, `
		WITH up AS (
			INSERT INTO build_live_log (version_id, seq, text)
			SELECT $1, $2, $3 FROM bot_versions WHERE id = $1 AND build_status = 'building'
			ON CONFLICT (version_id, seq) DO UPDATE SET text = EXCLUDED.text
			RETURNING version_id, seq)
		SELECT pg_notify($4, json_build_object('version', version_id, 'seq', seq)::text) FROM up`,
		versionID, c.Seq, c.Text, buildEventsChannel)
	if err != nil {
		return fmt.Errorf("store: add build log chunk %d of version %d: %w", c.Seq, versionID, err)
	}
	return nil
}

// BuildLogChunks returns the log of a build in progress from seq on, in
// order.
func (s *Store) BuildLogChunks(ctx context.Context, versionID int64, from int) ([]BuildLogChunk, error) {
	rows, err := s.db.Query(ctx, `
		SELECT seq, text FROM build_live_log
		WHERE version_id = $1 AND seq >= $2 ORDER BY seq`, versionID, from)
	if err != nil {
		return nil, fmt.Errorf("store: build log of version %d: %w", versionID, err)
	}
	defer rows.Close()
	var out []BuildLogChunk
	for rows.Next() {
		var c BuildLogChunk
		if err := rows.Scan(&c.Seq, &c.Text); err != nil {
			return nil, fmt.Errorf("store: build log of version %d: %w", versionID, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// BuildEventsListen holds one connection listening on build_events and
// calls fn for every event until ctx ends or the connection fails, and
// ready (when not nil) once it listens: what was committed before is not
// announced. Each portal process needs only one, however many pages
// follow builds.
func (s *Store) BuildEventsListen(ctx context.Context, ready func(), fn func(BuildEvent)) error {
	return s.listenReady(ctx, buildEventsChannel, ready, func(payload []byte) {
		var ev BuildEvent
		if json.Unmarshal(payload, &ev) == nil && ev.Version > 0 {
			fn(ev)
		}
	})
}
