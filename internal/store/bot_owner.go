package store

import (
	"context"
	"fmt"
	"time"
)

// BotSetPaused takes a bot off the ladder (paused) or puts it back. A
// paused bot keeps its rating and place on the leaderboard; challenges
// and battles still reach it.
func (s *Store) BotSetPaused(ctx context.Context, id int64, paused bool) error {
	tag, err := s.db.Exec(ctx, `UPDATE bots SET paused = $2 WHERE id = $1`, id, paused)
	if err != nil {
		return fmt.Errorf("store: pause bot %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: pause bot %d: %w", id, ErrNotFound)
	}
	return nil
}

// BotLadderRestart puts a bot stopped for failing back on the ladder,
// with its count of faults in a row started again. A bot that is not
// stopped is ErrConflict.
func (s *Store) BotLadderRestart(ctx context.Context, id int64) error {
	tag, err := s.db.Exec(ctx, `
		UPDATE bots SET fault_streak = 0, fault_stopped_at = NULL, fault_stop_reason = ''
		WHERE id = $1 AND fault_stopped_at IS NOT NULL`, id)
	if err != nil {
		return fmt.Errorf("store: put bot %d back on the ladder: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: put bot %d back on the ladder: %w", id, ErrConflict)
	}
	return nil
}

// FaultStoppedBot is a bot off the ladder for failing, for the admin page.
type FaultStoppedBot struct {
	ID        int64
	Name      string
	Owner     string
	Game      string
	StoppedAt time.Time
	Reason    string
}

// FaultStoppedBots lists the bots stopped for failing, newest first.
func (s *Store) FaultStoppedBots(ctx context.Context, limit int) ([]FaultStoppedBot, error) {
	rows, err := s.db.Query(ctx, `
		SELECT b.id, b.name, u.username, b.game, b.fault_stopped_at, b.fault_stop_reason
		FROM bots b JOIN users u ON u.id = b.owner_id
		WHERE b.fault_stopped_at IS NOT NULL
		ORDER BY b.fault_stopped_at DESC, b.id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: bots stopped for failing: %w", err)
	}
	defer rows.Close()
	var out []FaultStoppedBot
	for rows.Next() {
		var b FaultStoppedBot
		if err := rows.Scan(&b.ID, &b.Name, &b.Owner, &b.Game, &b.StoppedAt, &b.Reason); err != nil {
			return nil, fmt.Errorf("store: bots stopped for failing: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// BotRetire disables a bot on its owner's word: it leaves the ladder and
// the leaderboard and cannot be challenged or entered, and keeps its
// matches. A bot already disabled is ErrConflict.
func (s *Store) BotRetire(ctx context.Context, id int64) error {
	tag, err := s.db.Exec(ctx, `UPDATE bots SET disabled = true, retired_at = now() WHERE id = $1 AND NOT disabled`, id)
	if err != nil {
		return fmt.Errorf("store: retire bot %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: retire bot %d: %w", id, ErrConflict)
	}
	return nil
}

// BotUnretire brings back a bot its owner retired. A bot that is not
// retired (an organiser disabled it, or it plays) is ErrConflict.
func (s *Store) BotUnretire(ctx context.Context, id int64) error {
	tag, err := s.db.Exec(ctx, `UPDATE bots SET disabled = false, retired_at = NULL WHERE id = $1 AND retired_at IS NOT NULL`, id)
	if err != nil {
		return fmt.Errorf("store: bring back bot %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: bring back bot %d: %w", id, ErrConflict)
	}
	return nil
}

// BotRename gives a bot a new name. Another of the owner's bots with
// that name (in any letter case) is ErrConflict.
func (s *Store) BotRename(ctx context.Context, id int64, name string) error {
	tag, err := s.db.Exec(ctx, `UPDATE bots SET name = $2 WHERE id = $1`, id, name)
	if err != nil {
		return fmt.Errorf("store: rename bot %d: %w", id, interpretError(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: rename bot %d: %w", id, ErrNotFound)
	}
	return nil
}

// HouseBot is a starter bot on the ladder, with the version that plays.
type HouseBot struct {
	ID       int64
	Name     string
	Language string
	// Version is the number of the version that plays.
	Version  int
	Disabled bool
}

// HouseBots lists the house bots of a game with a built version, by name:
// the starter kits of the getting started page, and the bots organisers
// may enter in battles.
func (s *Store) HouseBots(ctx context.Context, game string) ([]HouseBot, error) {
	rows, err := s.db.Query(ctx, `
		SELECT b.id, b.name, b.language, v.number, b.disabled
		FROM bots b JOIN bot_versions v ON v.id = b.current_version_id
		WHERE b.house AND b.game = $1
		ORDER BY lower(b.name), b.id`, game)
	if err != nil {
		return nil, fmt.Errorf("store: house bots of %s: %w", game, err)
	}
	defer rows.Close()
	var out []HouseBot
	for rows.Next() {
		var b HouseBot
		if err := rows.Scan(&b.ID, &b.Name, &b.Language, &b.Version, &b.Disabled); err != nil {
			return nil, fmt.Errorf("store: house bots of %s: %w", game, err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}
