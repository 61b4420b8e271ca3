package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// LadderCandidate is a bot that may play ranked ladder matches.
type LadderCandidate struct {
	BotID        int64
	OwnerID      int64
	VersionID    int64
	House        bool
	Rating       float64
	Deviation    float64
	GamesToday   int
	VersionGames int
	Busy         bool
}

// ladderVersionGamesCap bounds a version's ladder games as reported: only
// the first few matter (placement).
const ladderVersionGamesCap = 10

// LadderCandidates lists the bots of a game that can play now: enabled,
// not paused by their owner nor stopped for failing, with a built current
// version. Unrated bots carry the Glicko-2 defaults.
// GamesToday counts the bot's ladder matches created on the current UTC
// day; VersionGames counts at most ladderVersionGamesCap games. Both come
// from counters that triggers keep (migration 0100) and the busy bots from
// the pending matches, so the cost follows the number of bots, not the
// number of matches ever played.
func (s *Store) LadderCandidates(ctx context.Context, game string) ([]LadderCandidate, error) {
	rows, err := s.db.Query(ctx, `
		WITH busy AS (
			SELECT DISTINCT p.bot_id
			FROM matches m JOIN match_players p ON p.match_id = m.id
			WHERE m.status IN ('queued', 'running') AND m.kind IN ('ladder', 'placement'))
		SELECT b.id, b.owner_id, b.current_version_id, b.house,
		       coalesce(r.rating, 1500), coalesce(r.deviation, 350),
		       CASE WHEN d.day = (now() AT TIME ZONE 'UTC')::date THEN d.games ELSE 0 END,
		       least(coalesce(v.games, 0), $2),
		       bz.bot_id IS NOT NULL
		FROM bots b
		LEFT JOIN ratings r ON r.bot_id = b.id AND r.ladder = b.game
		LEFT JOIN ladder_day_games d ON d.bot_id = b.id
		LEFT JOIN ladder_version_games v ON v.bot_version_id = b.current_version_id
		LEFT JOIN busy bz ON bz.bot_id = b.id
		WHERE b.game = $1 AND NOT b.disabled AND NOT b.paused AND b.fault_stopped_at IS NULL AND b.current_version_id IS NOT NULL
		ORDER BY b.id`, game, ladderVersionGamesCap)
	if err != nil {
		return nil, fmt.Errorf("store: ladder candidates for %s: %w", game, err)
	}
	defer rows.Close()
	var out []LadderCandidate
	for rows.Next() {
		var c LadderCandidate
		if err := rows.Scan(&c.BotID, &c.OwnerID, &c.VersionID, &c.House, &c.Rating, &c.Deviation,
			&c.GamesToday, &c.VersionGames, &c.Busy); err != nil {
			return nil, fmt.Errorf("store: ladder candidates for %s: %w", game, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: ladder candidates for %s: %w", game, err)
	}
	return out, nil
}

// LadderPending counts a game's ladder and placement matches that are
// queued or running, so a ladder tick only fills the free slots.
func (s *Store) LadderPending(ctx context.Context, game string) (int, error) {
	var n int
	err := s.db.QueryRow(ctx, `
		SELECT count(*) FROM matches
		WHERE status IN ('queued', 'running') AND kind IN ('ladder', 'placement') AND game = $1`, game).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: pending ladder matches of %s: %w", game, err)
	}
	return n, nil
}

// LadderFinishedSince counts a game's ladder and placement matches that
// finished since a time: the ladder's throughput.
func (s *Store) LadderFinishedSince(ctx context.Context, game string, since time.Time) (int, error) {
	var n int
	err := s.db.QueryRow(ctx, `
		SELECT count(*) FROM matches
		WHERE game = $1 AND kind IN ('ladder', 'placement') AND status = 'finished' AND finished_at >= $2`, game, since).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: ladder throughput of %s: %w", game, err)
	}
	return n, nil
}

// LadderMatchOf returns a bot's queued or running ladder match, if any.
func (s *Store) LadderMatchOf(ctx context.Context, botID int64) (int64, bool, error) {
	var id int64
	err := s.db.QueryRow(ctx, `
		SELECT m.id FROM matches m JOIN match_players p ON p.match_id = m.id
		WHERE p.bot_id = $1 AND m.kind IN ('ladder', 'placement') AND m.status IN ('queued', 'running')
		ORDER BY m.id LIMIT 1`, botID).Scan(&id)
	if err != nil {
		if err = interpretError(err); err == ErrNotFound {
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("store: ladder match of bot %d: %w", botID, err)
	}
	return id, true, nil
}

// LadderQueueRow is one waiting bot in the matchmaker's last queue.
type LadderQueueRow struct {
	BotID         int64
	Position      int
	GamesToday    int
	PlacementLeft int
}

// LadderQueueReplace stores a game's queue as the matchmaker left it.
func (s *Store) LadderQueueReplace(ctx context.Context, game string, rows []LadderQueueRow) error {
	bots := make([]int64, len(rows))
	pos := make([]int32, len(rows))
	today := make([]int32, len(rows))
	placement := make([]int32, len(rows))
	for i, r := range rows {
		bots[i], pos[i], today[i], placement[i] = r.BotID, int32(r.Position), int32(r.GamesToday), int32(r.PlacementLeft)
	}
	err := s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		if _, err := st.db.Exec(ctx, `DELETE FROM ladder_queue WHERE game = $1`, game); err != nil {
			return err
		}
		_, err := st.db.Exec(ctx, `
			INSERT INTO ladder_queue (game, bot_id, position, games_today, placement_left)
			SELECT $1, * FROM unnest($2::bigint[], $3::int[], $4::int[], $5::int[])`,
			game, bots, pos, today, placement)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: replace ladder queue of %s: %w", game, err)
	}
	return nil
}

// LadderQueueDepth counts the bots waiting in a game's queue.
func (s *Store) LadderQueueDepth(ctx context.Context, game string) (int, error) {
	var n int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM ladder_queue WHERE game = $1`, game).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: ladder queue depth of %s: %w", game, err)
	}
	return n, nil
}

// LadderBotState is what one bot's page needs about its ladder games.
type LadderBotState struct {
	// Bot is the bot itself (without its owner's name).
	Bot Bot
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
	// Queue is the bot's row in its game's queue; nil when it does not
	// wait there.
	Queue *LadderQueueRow
	// Tick is the matchmaker's periodic run; nil until a worker
	// registered it.
	Tick *PeriodicRun
}

// LadderBotState reads, in one statement, a bot, its ladder match, its
// current version's ladder games, its ladder games today, its place in
// the queue and tickJob's periodic run (the matchmaker's): the bot page
// shows them all, and is read far more often than any of them changes.
func (s *Store) LadderBotState(ctx context.Context, botID int64, tickJob string) (LadderBotState, error) {
	var st LadderBotState
	var pos, queueToday, placementLeft *int
	var tickMS *int64
	var tickStarted *time.Time
	var tickUpdated *time.Time
	b := &st.Bot
	err := s.db.QueryRow(ctx, `
		SELECT b.id, b.owner_id, b.name, b.game, b.language, b.disabled, b.house, b.paused,
		       b.retired_at IS NOT NULL, b.fault_stopped_at, b.fault_stop_reason, b.current_version_id, b.created_at,
		       coalesce(cur.id, 0), coalesce(cur.status, ''),
		       (SELECT count(*) FROM (
		           SELECT 1 FROM match_players p JOIN matches m ON m.id = p.match_id
		           WHERE p.bot_version_id = b.current_version_id AND m.kind IN ('ladder', 'placement')
		             AND m.status <> 'canceled'
		           LIMIT $2) v),
		       v.built_at,
		       CASE WHEN d.day = (now() AT TIME ZONE 'UTC')::date THEN d.games ELSE 0 END,
		       q.position, q.games_today, q.placement_left,
		       t.interval_ms, t.last_started_at, t.updated_at
		FROM bots b
		LEFT JOIN bot_versions v ON v.id = b.current_version_id
		LEFT JOIN ladder_day_games d ON d.bot_id = b.id
		LEFT JOIN ladder_queue q ON q.game = b.game AND q.bot_id = b.id
		LEFT JOIN periodic_runs t ON t.name = $3
		LEFT JOIN LATERAL (
		    SELECT m.id, m.status FROM matches m JOIN match_players p ON p.match_id = m.id
		    WHERE p.bot_id = b.id AND m.kind IN ('ladder', 'placement') AND m.status IN ('queued', 'running')
		    ORDER BY m.id LIMIT 1) cur ON true
		WHERE b.id = $1`, botID, ladderVersionGamesCap, tickJob).Scan(
		&b.ID, &b.OwnerID, &b.Name, &b.Game, &b.Language, &b.Disabled, &b.House, &b.Paused,
		&b.Retired, &b.FaultStoppedAt, &b.FaultStopReason, &b.CurrentVersionID, &b.CreatedAt,
		&st.MatchID, &st.MatchStatus, &st.VersionGames, &st.BuiltAt, &st.GamesToday,
		&pos, &queueToday, &placementLeft, &tickMS, &tickStarted, &tickUpdated)
	if err != nil {
		return st, fmt.Errorf("store: ladder state of bot %d: %w", botID, interpretError(err))
	}
	if pos != nil {
		st.Queue = &LadderQueueRow{BotID: botID, Position: *pos, GamesToday: *queueToday, PlacementLeft: *placementLeft}
	}
	if tickMS != nil {
		st.Tick = &PeriodicRun{Name: tickJob, Interval: time.Duration(*tickMS) * time.Millisecond,
			LastStartedAt: tickStarted, UpdatedAt: *tickUpdated}
	}
	return st, nil
}
