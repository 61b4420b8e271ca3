package store

import (
	"context"
	"fmt"
	"time"
)

// PlatformFailure is a match the platform failed: never rated, listed
// with its reason on the admin page and on its bots' pages.
type PlatformFailure struct {
	MatchID    int64
	Game       string
	Kind       string
	Ranked     bool
	Attempts   int
	Error      string
	FinishedAt *time.Time
	// Bots names the seats, in seat order.
	Bots []string
}

// PlatformFailureParams filter the list, newest first.
type PlatformFailureParams struct {
	// BotID, when set, keeps the matches that bot was seated in.
	BotID int64
	Limit int
	// WithHidden keeps the games of hidden battles (organisers only).
	WithHidden bool
}

// PlatformFailures lists matches the platform failed, newest first. It
// reads the partial index of such matches, which stays small whatever the
// number of matches played.
func (s *Store) PlatformFailures(ctx context.Context, p PlatformFailureParams) ([]PlatformFailure, error) {
	rows, err := s.db.Query(ctx, `
		SELECT m.id, m.game, m.kind, m.ranked, m.attempt, m.error, m.finished_at,
		       array(SELECT b.name FROM match_players x JOIN bots b ON b.id = x.bot_id WHERE x.match_id = m.id ORDER BY x.seat)
		FROM matches m
		WHERE m.fault = 'platform'
		  AND ($2 = 0 OR EXISTS (SELECT 1 FROM match_players p WHERE p.match_id = m.id AND p.bot_id = $2))
		  AND `+notHidden("m.id", p.WithHidden)+`
		ORDER BY m.id DESC LIMIT $1`, p.Limit, p.BotID)
	if err != nil {
		return nil, fmt.Errorf("store: platform failures: %w", err)
	}
	defer rows.Close()
	var out []PlatformFailure
	for rows.Next() {
		var f PlatformFailure
		if err := rows.Scan(&f.MatchID, &f.Game, &f.Kind, &f.Ranked, &f.Attempts, &f.Error, &f.FinishedAt, &f.Bots); err != nil {
			return nil, fmt.Errorf("store: platform failures: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
