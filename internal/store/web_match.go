package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// MatchRow is a match with its players, as match lists show it.
type MatchRow struct {
	ID         int64
	Game       string
	Kind       string
	Ranked     bool
	Status     string
	Rounds     int
	MapSize    int
	Seed       int64
	ReplayKey  string
	Error      string
	Summary    json.RawMessage
	CreatedAt  time.Time
	FinishedAt *time.Time
	// PairID is the id of the first half of the pair the match is a half
	// of; nil for a match that stands alone.
	PairID *int64
	// Fault is FaultPlatform for a match the platform failed.
	Fault string
	// DuelID is the duel the match is game DuelGame (from 0) of; nil for
	// a match of no duel.
	DuelID   *int64
	DuelGame int
	Players  []MatchPlayerRow
}

// MatchPlayerRow is one seat of a match.
type MatchPlayerRow struct {
	Seat          int
	Key           string
	BotID         int64
	BotName       string
	OwnerID       int64
	Owner         string
	VersionID     int64
	VersionNumber int
	Points        int
	ShipsLeft     int
	ShotsFired    int
	ShotsLanded   int
	Killed        bool
	Outcome       string
	Rank          int
	Reason        string
	// Log is the bot's own log of the match: show it to its owner only.
	Log string
}

const matchColumns = `m.id, m.game, m.kind, m.ranked, m.status, m.rounds, m.map_size, m.seed, m.replay_key,
	m.error, m.summary, m.created_at, m.finished_at, m.pair_id, m.fault, m.duel_id, coalesce(m.duel_game, 0)`

func scanMatch(row interface{ Scan(...any) error }) (*MatchRow, error) {
	var m MatchRow
	err := row.Scan(&m.ID, &m.Game, &m.Kind, &m.Ranked, &m.Status, &m.Rounds, &m.MapSize, &m.Seed, &m.ReplayKey,
		&m.Error, &m.Summary, &m.CreatedAt, &m.FinishedAt, &m.PairID, &m.Fault, &m.DuelID, &m.DuelGame)
	if err != nil {
		return nil, interpretError(err)
	}
	return &m, nil
}

// MatchDetailGet returns a match with its players in seat order.
func (s *Store) MatchDetailGet(ctx context.Context, id int64) (*MatchRow, error) {
	m, err := scanMatch(s.db.QueryRow(ctx, `SELECT `+matchColumns+` FROM matches m WHERE m.id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("store: get match %d: %w", id, err)
	}
	ms := []*MatchRow{m}
	if err := s.matchAttachPlayers(ctx, ms, true); err != nil {
		return nil, err
	}
	return m, nil
}

// MatchListParams filter and page a match list, newest first.
type MatchListParams struct {
	// BotID, when set, keeps the matches that bot played.
	BotID int64
	// Game, when set, keeps the matches of that game.
	Game string
	// OwnerID, when set, keeps the matches a bot of that user played.
	OwnerID int64
	// Outcome, when set with BotID or OwnerID, keeps the matches where
	// that bot (or one of that user's bots) had this outcome: "win",
	// "loss" or "draw".
	Outcome string
	// Kind, when set, keeps the matches of that kind ("ladder",
	// "placement", "challenge", "battle").
	Kind string
	// Ranked, when set, keeps the ranked matches (true) or the others.
	Ranked *bool
	// Since, when set, keeps the matches created at or after it.
	Since time.Time
	// WithHidden keeps the games of battles whose results are hidden and
	// not yet released; only organisers may see them (see hiddenGame).
	WithHidden bool
	Limit      int
	Offset     int
}

// hiddenGame is true for a match that is a game of a battle whose results
// are hidden and not yet released, with %s the match id's column. While
// hidden, who played which game is itself the result (the games' players
// give the bracket away), so public lists leave such games out entirely.
const hiddenGame = `EXISTS (SELECT 1 FROM battle_games hg JOIN battles hb ON hb.id = hg.battle_id
	WHERE hg.match_id = %s AND hb.results_hidden AND NOT hb.released)`

// notHidden is a condition that keeps the rows of column's match unless
// it is a hidden battle game, or keeps them all withHidden. It is left
// out of the query rather than made a parameter, so the planner can use
// it (an anti-join on battle_games' match index).
func notHidden(column string, withHidden bool) string {
	if withHidden {
		return "true"
	}
	return "NOT " + fmt.Sprintf(hiddenGame, column)
}

// MatchRows lists matches, newest first, with their players (without logs).
func (s *Store) MatchRows(ctx context.Context, p MatchListParams) ([]MatchRow, error) {
	args := []any{p.Limit, p.Offset}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	bySeat := p.BotID != 0 || p.OwnerID != 0
	// m is the match in the query of matches, g in the query of seats.
	g := "m"
	if bySeat {
		g = "g"
	}
	// Only the filters given become conditions, so that each query keeps
	// a plan that uses its indexes.
	var conds []string
	if p.Game != "" {
		conds = append(conds, g+".game = "+arg(p.Game))
	}
	if p.Kind != "" {
		conds = append(conds, g+".kind = "+arg(p.Kind))
	}
	if p.Ranked != nil {
		conds = append(conds, g+".ranked = "+arg(*p.Ranked))
	}
	if !p.Since.IsZero() {
		conds = append(conds, g+".created_at >= "+arg(p.Since))
	}
	if !bySeat {
		conds = append(conds, notHidden("m.id", p.WithHidden))
		return s.matchRowsQuery(ctx, `SELECT `+matchColumns+` FROM matches m WHERE `+strings.Join(conds, " AND ")+`
			ORDER BY m.id DESC LIMIT $1 OFFSET $2`, args...)
	}
	join := ""
	if p.BotID != 0 {
		conds = append(conds, "mp.bot_id = "+arg(p.BotID))
	}
	if p.OwnerID != 0 {
		join = " JOIN bots b ON b.id = mp.bot_id"
		conds = append(conds, "b.owner_id = "+arg(p.OwnerID))
	}
	if p.Outcome != "" {
		conds = append(conds, "mp.outcome = "+arg(p.Outcome))
	}
	conds = append(conds, notHidden("mp.match_id", p.WithHidden))
	// Page through the bot's seats in index order, then fetch those
	// matches: scanning matches newest first would read thousands of
	// rows for a bot with few recent games.
	q := `SELECT ` + matchColumns + ` FROM (
			SELECT DISTINCT mp.match_id FROM match_players mp JOIN matches g ON g.id = mp.match_id` + join + `
			WHERE ` + strings.Join(conds, " AND ") + `
			ORDER BY mp.match_id DESC LIMIT $1 OFFSET $2
		) p JOIN matches m ON m.id = p.match_id
		ORDER BY m.id DESC`
	return s.matchRowsQuery(ctx, q, args...)
}

// matchRowsQuery runs a query of matchColumns and attaches the players.
func (s *Store) matchRowsQuery(ctx context.Context, q string, args ...any) ([]MatchRow, error) {
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list matches: %w", err)
	}
	var ms []*MatchRow
	for rows.Next() {
		m, err := scanMatch(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: list matches: %w", err)
		}
		ms = append(ms, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list matches: %w", err)
	}
	if err := s.matchAttachPlayers(ctx, ms, false); err != nil {
		return nil, err
	}
	out := make([]MatchRow, len(ms))
	for i, m := range ms {
		out[i] = *m
	}
	return out, nil
}

// matchAttachPlayers loads the players of ms in one query.
func (s *Store) matchAttachPlayers(ctx context.Context, ms []*MatchRow, withLog bool) error {
	if len(ms) == 0 {
		return nil
	}
	ids := make([]int64, len(ms))
	byID := make(map[int64]*MatchRow, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
		byID[m.ID] = m
	}
	rows, err := s.db.Query(ctx, `
		SELECT p.match_id, p.seat, p.key, p.bot_id, b.name, b.owner_id, u.username, p.bot_version_id, v.number,
		       p.points, p.ships_left, p.shots_fired, p.shots_landed, p.killed, p.outcome, p.rank, p.reason,
		       CASE WHEN $2 THEN p.log ELSE '' END
		FROM match_players p
		JOIN bots b ON b.id = p.bot_id
		JOIN users u ON u.id = b.owner_id
		JOIN bot_versions v ON v.id = p.bot_version_id
		WHERE p.match_id = ANY($1) ORDER BY p.match_id, p.seat`, ids, withLog)
	if err != nil {
		return fmt.Errorf("store: players of matches: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var matchID int64
		var p MatchPlayerRow
		if err := rows.Scan(&matchID, &p.Seat, &p.Key, &p.BotID, &p.BotName, &p.OwnerID, &p.Owner, &p.VersionID,
			&p.VersionNumber, &p.Points, &p.ShipsLeft, &p.ShotsFired, &p.ShotsLanded, &p.Killed, &p.Outcome,
			&p.Rank, &p.Reason, &p.Log); err != nil {
			return fmt.Errorf("store: players of matches: %w", err)
		}
		m := byID[matchID]
		m.Players = append(m.Players, p)
	}
	return rows.Err()
}

// LeaderboardRow is one line of a game's leaderboard.
type LeaderboardRow struct {
	Rank     int
	BotID    int64
	BotName  string
	Owner    string
	Language string
	House    bool
	Rating
}

// LeaderboardRows returns one page of a game's leaderboard: every enabled
// bot with a built version, rated bots by conservative rating then id (read
// in index order), then bots without a rated match yet, by id, showing the
// Glicko-2 start (1500 ± 350). It also returns how many bots are listed.
func (s *Store) LeaderboardRows(ctx context.Context, game string, limit, offset int) ([]LeaderboardRow, int, error) {
	var total int
	err := s.db.QueryRow(ctx, `SELECT count(*) FROM bots WHERE game = $1 AND NOT disabled AND current_version_id IS NOT NULL`,
		game).Scan(&total)
	if err != nil {
		return nil, 0, fmt.Errorf("store: count leaderboard of %s: %w", game, err)
	}
	rows, err := s.db.Query(ctx, `
		SELECT id, name, owner, language, house, rating, deviation, games, wins, losses, draws, last_game_at
		FROM (
			(SELECT 0 AS part, b.id, b.name, u.username AS owner, b.language, b.house, r.rating, r.deviation,
			        r.rating - 2 * r.deviation AS conservative,
			        r.games, r.wins, r.losses, r.draws, r.last_game_at
			 FROM ratings r JOIN bots b ON b.id = r.bot_id JOIN users u ON u.id = b.owner_id
			 WHERE r.ladder = $1 AND b.game = $1 AND NOT b.disabled AND b.current_version_id IS NOT NULL
			 ORDER BY r.rating - 2 * r.deviation DESC, r.bot_id
			 LIMIT $2::int + $3::int)
			UNION ALL
			(SELECT 1, b.id, b.name, u.username, b.language, b.house, 1500, 350, 800, 0, 0, 0, 0, NULL
			 FROM bots b JOIN users u ON u.id = b.owner_id
			 WHERE b.game = $1 AND NOT b.disabled AND b.current_version_id IS NOT NULL
			   AND NOT EXISTS (SELECT 1 FROM ratings r WHERE r.bot_id = b.id AND r.ladder = $1)
			 ORDER BY b.id
			 LIMIT $2::int + $3::int)
		) l
		ORDER BY part, conservative DESC, id
		LIMIT $2 OFFSET $3`, game, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("store: leaderboard of %s: %w", game, err)
	}
	defer rows.Close()
	var out []LeaderboardRow
	for rows.Next() {
		l := LeaderboardRow{Rank: offset + len(out) + 1}
		if err := rows.Scan(&l.BotID, &l.BotName, &l.Owner, &l.Language, &l.House, &l.Rating.Rating, &l.Deviation,
			&l.Games, &l.Wins, &l.Losses, &l.Draws, &l.LastGameAt); err != nil {
			return nil, 0, fmt.Errorf("store: leaderboard of %s: %w", game, err)
		}
		out = append(out, l)
	}
	return out, total, rows.Err()
}
