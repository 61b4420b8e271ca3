package store

import (
	"context"
	"fmt"
)

// BattlePlayableEntries counts a battle's entries whose bot is enabled and
// has a built version: those that would play if it started now.
func (s *Store) BattlePlayableEntries(ctx context.Context, battleID int64) (int, error) {
	var n int
	err := s.db.QueryRow(ctx, `
		SELECT count(*) FROM battle_entries e JOIN bots b ON b.id = e.bot_id
		WHERE e.battle_id = $1 AND NOT b.disabled AND b.current_version_id IS NOT NULL`, battleID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: playable entries of battle %d: %w", battleID, err)
	}
	return n, nil
}

// BattleCancelQueuedGames cancels a battle's games that have not started.
// Games already running finish and are recorded, but no longer count.
func (s *Store) BattleCancelQueuedGames(ctx context.Context, battleID int64) error {
	_, err := s.db.Exec(ctx, `
		UPDATE matches SET status = 'canceled', finished_at = now()
		WHERE status = 'queued' AND id IN (SELECT match_id FROM battle_games WHERE battle_id = $1)`, battleID)
	if err != nil {
		return fmt.Errorf("store: cancel queued games of battle %d: %w", battleID, err)
	}
	return nil
}

// BattleHiddenMatches returns which of the matches are games of a battle
// whose results are hidden and not yet released.
func (s *Store) BattleHiddenMatches(ctx context.Context, matchIDs []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(matchIDs) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, `
		SELECT g.match_id FROM battle_games g JOIN battles b ON b.id = g.battle_id
		WHERE g.match_id = ANY($1) AND b.results_hidden AND NOT b.released`, matchIDs)
	if err != nil {
		return nil, fmt.Errorf("store: hidden battle games: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: hidden battle games: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}
