package store

import (
	"context"
	"fmt"
	"time"
)

// LadderBotState is what one bot's page needs about its ladder games.
type LadderBotState struct {
	// MatchID and MatchStatus are its queued or running ladder match;
	// zero and empty when it has none.
	MatchID     int64
	MatchStatus string
	// VersionGames counts the current version's ladder and placement
	// matches not canceled (played, playing or queued), up to the number
	// that placement needs.
	VersionGames int
	// BuiltAt is when the current version's build finished.
	BuiltAt *time.Time
	// GamesToday counts the bot's ladder and placement matches created on
	// the current UTC day, as the matchmaker counts them.
	GamesToday int
}

// LadderBotState reads a bot's ladder match, its current version's ladder
// games and its ladder games today.
func (s *Store) LadderBotState(ctx context.Context, botID int64) (LadderBotState, error) {
	var st LadderBotState
	err := s.db.QueryRow(ctx, `
		SELECT coalesce(cur.id, 0), coalesce(cur.status, ''),
		       (SELECT count(*) FROM (
		           SELECT 1 FROM match_players p JOIN matches m ON m.id = p.match_id
		           WHERE p.bot_version_id = b.current_version_id AND m.kind IN ('ladder', 'placement')
		             AND m.status <> 'canceled'
		           LIMIT $2) v),
		       v.built_at,
		       CASE WHEN d.day = (now() AT TIME ZONE 'UTC')::date THEN d.games ELSE 0 END
		FROM bots b
		LEFT JOIN bot_versions v ON v.id = b.current_version_id
		LEFT JOIN ladder_day_games d ON d.bot_id = b.id
		LEFT JOIN LATERAL (
		    SELECT m.id, m.status FROM matches m JOIN match_players p ON p.match_id = m.id
		    WHERE p.bot_id = b.id AND m.kind IN ('ladder', 'placement') AND m.status IN ('queued', 'running')
		    ORDER BY m.id LIMIT 1) cur ON true
		WHERE b.id = $1`, botID, ladderVersionGamesCap).Scan(&st.MatchID, &st.MatchStatus, &st.VersionGames, &st.BuiltAt, &st.GamesToday)
	if err != nil {
		return st, fmt.Errorf("store: ladder state of bot %d: %w", botID, interpretError(err))
	}
	return st, nil
}
