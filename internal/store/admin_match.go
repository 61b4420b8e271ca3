package store

import (
	"context"
	"fmt"
)

// AdminMatchRequeue puts a queued or running match back to queued so a
// fresh job plays it (a job lost with its worker). Ended matches give
// ErrMatchDone: rerun them instead.
func (s *Store) AdminMatchRequeue(ctx context.Context, id int64) error {
	tag, err := s.db.Exec(ctx, `
		UPDATE matches SET status = 'queued', started_at = NULL
		WHERE id = $1 AND status IN ('queued', 'running')`, id)
	if err != nil {
		return fmt.Errorf("store: requeue match %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: requeue match %d: %w", id, s.matchEndedOr(ctx, id, ErrNotFound))
	}
	return nil
}

// AdminMatchRerun records a new, unranked copy of a match: the same game,
// map, seed, seats and bot versions, so it replays the same conditions.
// The caller enqueues the new match in the same transaction.
func (s *Store) AdminMatchRerun(ctx context.Context, id, actorID int64) (int64, error) {
	seats, err := s.MatchSeats(ctx, id)
	if err != nil {
		return 0, err
	}
	m, err := s.MatchDetailGet(ctx, id)
	if err != nil {
		return 0, err
	}
	players := make([]MatchPlayerParams, len(seats))
	for i, st := range seats {
		players[i] = MatchPlayerParams{BotID: st.BotID, BotVersionID: st.BotVersionID}
	}
	kind := m.Kind
	if kind == "ladder" || kind == "placement" {
		// A rerun never changes ratings, and an unranked ladder match
		// would confuse the matchmaker's counts.
		kind = "challenge"
	}
	nm, err := s.MatchCreate(ctx, MatchCreateParams{
		Game: m.Game, MapSize: m.MapSize, Seed: m.Seed, Kind: kind, Ranked: false, RequestedBy: &actorID, Players: players,
	})
	if err != nil {
		return 0, fmt.Errorf("store: rerun match %d: %w", id, err)
	}
	return nm.ID, nil
}

// AdminRecentMatches lists the newest matches that are waiting, running
// or failed: what an operator may need to act on.
func (s *Store) AdminRecentMatches(ctx context.Context, limit int) ([]MatchRow, error) {
	rows, err := s.db.Query(ctx, `
		SELECT id, game, kind, status, coalesce(error, ''), created_at FROM matches
		WHERE status IN ('queued', 'running', 'failed')
		ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: recent matches: %w", err)
	}
	defer rows.Close()
	var out []MatchRow
	for rows.Next() {
		var m MatchRow
		if err := rows.Scan(&m.ID, &m.Game, &m.Kind, &m.Status, &m.Error, &m.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: recent matches: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
