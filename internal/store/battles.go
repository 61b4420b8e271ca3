package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Battle is an organised tournament.
type Battle struct {
	ID              int64
	Name            string
	OrganiserID     *int64
	Format          string
	Game            string
	MapSize         int
	GamesPerPairing int
	SwissRounds     int
	StartAt         time.Time
	EntryDeadline   time.Time
	Status          string
	ResultsHidden   bool
	Released        bool
	Seed            int64
	CreatedAt       time.Time
	StartedAt       *time.Time
	FinishedAt      *time.Time
	Entries         int
}

// ResultsVisible reports whether results may be shown to everyone.
func (b *Battle) ResultsVisible() bool { return !b.ResultsHidden || b.Released }

// BattleCreateParams are the fields of a new battle.
type BattleCreateParams struct {
	Name            string
	OrganiserID     int64
	Format          string
	Game            string
	MapSize         int
	GamesPerPairing int
	SwissRounds     int
	StartAt         time.Time
	EntryDeadline   time.Time
	ResultsHidden   bool
	Seed            int64
}

// BattleCreate records a new battle, open for entries.
func (s *Store) BattleCreate(ctx context.Context, p BattleCreateParams) (int64, error) {
	var id int64
	err := s.db.QueryRow(ctx, `
		INSERT INTO battles (name, organiser_id, format, game, map_size, games_per_pairing, swiss_rounds,
		                     start_at, entry_deadline, results_hidden, seed)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
		p.Name, p.OrganiserID, p.Format, p.Game, p.MapSize, p.GamesPerPairing, p.SwissRounds,
		p.StartAt, p.EntryDeadline, p.ResultsHidden, p.Seed).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: create battle %q: %w", p.Name, interpretError(err))
	}
	return id, nil
}

// BattleUpdate changes a battle's settings to those of p; its organiser
// and seed stay as they were. The caller checks that the battle has not
// started, holding its row (BattleGetForUpdate).
func (s *Store) BattleUpdate(ctx context.Context, id int64, p BattleCreateParams) error {
	tag, err := s.db.Exec(ctx, `
		UPDATE battles SET name = $2, format = $3, game = $4, map_size = $5, games_per_pairing = $6,
		       swiss_rounds = $7, start_at = $8, entry_deadline = $9, results_hidden = $10
		WHERE id = $1`,
		id, p.Name, p.Format, p.Game, p.MapSize, p.GamesPerPairing, p.SwissRounds,
		p.StartAt, p.EntryDeadline, p.ResultsHidden)
	if err != nil {
		return fmt.Errorf("store: update battle %d: %w", id, interpretError(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: update battle %d: %w", id, ErrNotFound)
	}
	return nil
}

const battleSelect = `
	SELECT b.id, b.name, b.organiser_id, b.format, b.game, b.map_size, b.games_per_pairing, b.swiss_rounds,
	       b.start_at, b.entry_deadline, b.status, b.results_hidden, b.released, b.seed,
	       b.created_at, b.started_at, b.finished_at,
	       (SELECT count(*) FROM battle_entries e WHERE e.battle_id = b.id)
	FROM battles b`

func scanBattle(row interface{ Scan(...any) error }) (*Battle, error) {
	var b Battle
	err := row.Scan(&b.ID, &b.Name, &b.OrganiserID, &b.Format, &b.Game, &b.MapSize, &b.GamesPerPairing, &b.SwissRounds,
		&b.StartAt, &b.EntryDeadline, &b.Status, &b.ResultsHidden, &b.Released, &b.Seed,
		&b.CreatedAt, &b.StartedAt, &b.FinishedAt, &b.Entries)
	if err != nil {
		return nil, interpretError(err)
	}
	return &b, nil
}

// BattleGetByID returns a battle.
func (s *Store) BattleGetByID(ctx context.Context, id int64) (*Battle, error) {
	b, err := scanBattle(s.db.QueryRow(ctx, battleSelect+` WHERE b.id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("store: get battle %d: %w", id, err)
	}
	return b, nil
}

// BattleGetForUpdate returns a battle and locks its row until the
// transaction ends, so two workers never advance the same battle at once.
func (s *Store) BattleGetForUpdate(ctx context.Context, id int64) (*Battle, error) {
	if _, err := s.db.Exec(ctx, `SELECT 1 FROM battles WHERE id = $1 FOR UPDATE`, id); err != nil {
		return nil, fmt.Errorf("store: lock battle %d: %w", id, err)
	}
	return s.BattleGetByID(ctx, id)
}

// BattleList lists battles, upcoming and running first.
func (s *Store) BattleList(ctx context.Context) ([]Battle, error) {
	return s.battleQuery(ctx, battleSelect+`
		ORDER BY b.status IN ('open', 'running') DESC, b.start_at DESC, b.id DESC`)
}

// BattleListDue lists open battles whose start time has come.
func (s *Store) BattleListDue(ctx context.Context, now time.Time) ([]Battle, error) {
	return s.battleQuery(ctx, battleSelect+` WHERE b.status = 'open' AND b.start_at <= $1 ORDER BY b.start_at`, now)
}

func (s *Store) battleQuery(ctx context.Context, sql string, args ...any) ([]Battle, error) {
	rows, err := s.db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list battles: %w", err)
	}
	defer rows.Close()
	var out []Battle
	for rows.Next() {
		b, err := scanBattle(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list battles: %w", err)
		}
		out = append(out, *b)
	}
	return out, rows.Err()
}

// BattleSetStatus moves a battle to a status, stamping start or finish.
func (s *Store) BattleSetStatus(ctx context.Context, id int64, status string) error {
	_, err := s.db.Exec(ctx, `
		UPDATE battles SET status = $2,
		       started_at = CASE WHEN $2 = 'running' THEN now() ELSE started_at END,
		       finished_at = CASE WHEN $2 IN ('finished', 'canceled') THEN now() ELSE finished_at END
		WHERE id = $1`, id, status)
	if err != nil {
		return fmt.Errorf("store: set status of battle %d: %w", id, err)
	}
	return nil
}

// BattleRelease makes hidden results visible.
func (s *Store) BattleRelease(ctx context.Context, id int64) error {
	if _, err := s.db.Exec(ctx, `UPDATE battles SET released = true WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: release battle %d: %w", id, err)
	}
	return nil
}

// BattleEntry is a bot entered in a battle.
type BattleEntry struct {
	BattleID      int64
	BotID         int64
	BotName       string
	UserID        int64
	Username      string
	Language      string
	VersionID     *int64
	VersionNumber *int
	SeedPosition  *int
	FinalPosition *int
	EnteredAt     time.Time
}

// BattleEnter enters a bot; ErrConflict when it is already entered.
func (s *Store) BattleEnter(ctx context.Context, battleID, botID, userID int64) error {
	_, err := s.db.Exec(ctx, `INSERT INTO battle_entries (battle_id, bot_id, user_id) VALUES ($1, $2, $3)`,
		battleID, botID, userID)
	if err != nil {
		return fmt.Errorf("store: enter bot %d in battle %d: %w", botID, battleID, interpretError(err))
	}
	return nil
}

// BattleWithdraw removes an entry before the battle starts.
func (s *Store) BattleWithdraw(ctx context.Context, battleID, botID int64) error {
	tag, err := s.db.Exec(ctx, `DELETE FROM battle_entries WHERE battle_id = $1 AND bot_id = $2`, battleID, botID)
	if err != nil {
		return fmt.Errorf("store: withdraw bot %d from battle %d: %w", botID, battleID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: withdraw bot %d from battle %d: %w", botID, battleID, ErrNotFound)
	}
	return nil
}

// BattleEntries lists a battle's entries by seed, then entry time.
func (s *Store) BattleEntries(ctx context.Context, battleID int64) ([]BattleEntry, error) {
	rows, err := s.db.Query(ctx, `
		SELECT e.battle_id, e.bot_id, b.name, e.user_id, u.username, b.language,
		       e.bot_version_id, v.number, e.seed_position, e.final_position, e.entered_at
		FROM battle_entries e
		JOIN bots b ON b.id = e.bot_id
		JOIN users u ON u.id = e.user_id
		LEFT JOIN bot_versions v ON v.id = e.bot_version_id
		WHERE e.battle_id = $1
		ORDER BY e.seed_position NULLS LAST, e.entered_at, e.bot_id`, battleID)
	if err != nil {
		return nil, fmt.Errorf("store: list entries of battle %d: %w", battleID, err)
	}
	defer rows.Close()
	var out []BattleEntry
	for rows.Next() {
		var e BattleEntry
		if err := rows.Scan(&e.BattleID, &e.BotID, &e.BotName, &e.UserID, &e.Username, &e.Language,
			&e.VersionID, &e.VersionNumber, &e.SeedPosition, &e.FinalPosition, &e.EnteredAt); err != nil {
			return nil, fmt.Errorf("store: list entries of battle %d: %w", battleID, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// BattleFreezeEntries fixes each entry's bot version to the bot's current
// built version and seeds the entries by ladder rating (conservative value,
// unrated last, then entry order). Entries whose bot has no built version or
// is disabled are removed. It returns the frozen entries in seed order.
func (s *Store) BattleFreezeEntries(ctx context.Context, battleID int64, ladder string) ([]BattleEntry, error) {
	err := s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		if _, err := st.db.Exec(ctx, `
			DELETE FROM battle_entries e USING bots b
			WHERE e.battle_id = $1 AND b.id = e.bot_id AND (b.current_version_id IS NULL OR b.disabled)`,
			battleID); err != nil {
			return err
		}
		_, err := st.db.Exec(ctx, `
			WITH seeded AS (
				SELECT e.bot_id, b.current_version_id,
				       row_number() OVER (ORDER BY r.rating - 2 * r.deviation DESC NULLS LAST, e.entered_at, e.bot_id) AS pos
				FROM battle_entries e
				JOIN bots b ON b.id = e.bot_id
				LEFT JOIN ratings r ON r.bot_id = e.bot_id AND r.ladder = $2
				WHERE e.battle_id = $1)
			UPDATE battle_entries e SET bot_version_id = seeded.current_version_id, seed_position = seeded.pos
			FROM seeded WHERE e.battle_id = $1 AND e.bot_id = seeded.bot_id`, battleID, ladder)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: freeze entries of battle %d: %w", battleID, err)
	}
	return s.BattleEntries(ctx, battleID)
}

// BattleSetFinalPositions stores each bot's final position.
func (s *Store) BattleSetFinalPositions(ctx context.Context, battleID int64, positions map[int64]int) error {
	for botID, pos := range positions {
		if _, err := s.db.Exec(ctx, `UPDATE battle_entries SET final_position = $3 WHERE battle_id = $1 AND bot_id = $2`,
			battleID, botID, pos); err != nil {
			return fmt.Errorf("store: final position of bot %d in battle %d: %w", botID, battleID, err)
		}
	}
	return nil
}

// BattleGame is one scheduled game of a battle with its match's outcome.
type BattleGame struct {
	ID           int64
	BattleID     int64
	Round        int
	BracketMatch *int
	GameNumber   int
	MatchID      int64
	MatchStatus  string
	// Bots, points and outcomes per seat, in seat order.
	BotIDs   []int64
	Points   []int
	Outcomes []string
}

// BattleGameAdd links a match to a battle's schedule.
func (s *Store) BattleGameAdd(ctx context.Context, battleID int64, round int, bracketMatch *int, gameNumber int, matchID int64) error {
	_, err := s.db.Exec(ctx, `
		INSERT INTO battle_games (battle_id, round, bracket_match, game_number, match_id) VALUES ($1, $2, $3, $4, $5)`,
		battleID, round, bracketMatch, gameNumber, matchID)
	if err != nil {
		return fmt.Errorf("store: add game to battle %d: %w", battleID, err)
	}
	return nil
}

// BattleGames lists a battle's games in schedule order.
func (s *Store) BattleGames(ctx context.Context, battleID int64) ([]BattleGame, error) {
	rows, err := s.db.Query(ctx, `
		SELECT g.id, g.battle_id, g.round, g.bracket_match, g.game_number, g.match_id, m.status,
		       array_agg(p.bot_id ORDER BY p.seat), array_agg(p.points ORDER BY p.seat), array_agg(p.outcome ORDER BY p.seat)
		FROM battle_games g
		JOIN matches m ON m.id = g.match_id
		JOIN match_players p ON p.match_id = g.match_id
		WHERE g.battle_id = $1
		GROUP BY g.id, m.status
		ORDER BY g.round, g.bracket_match NULLS FIRST, g.game_number, g.id`, battleID)
	if err != nil {
		return nil, fmt.Errorf("store: list games of battle %d: %w", battleID, err)
	}
	defer rows.Close()
	var out []BattleGame
	for rows.Next() {
		var g BattleGame
		if err := rows.Scan(&g.ID, &g.BattleID, &g.Round, &g.BracketMatch, &g.GameNumber, &g.MatchID, &g.MatchStatus,
			&g.BotIDs, &g.Points, &g.Outcomes); err != nil {
			return nil, fmt.Errorf("store: list games of battle %d: %w", battleID, err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// BattleIDForMatch returns the battle a match belongs to, or ErrNotFound.
func (s *Store) BattleIDForMatch(ctx context.Context, matchID int64) (int64, error) {
	var id int64
	err := s.db.QueryRow(ctx, `SELECT battle_id FROM battle_games WHERE match_id = $1`, matchID).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: battle of match %d: %w", matchID, interpretError(err))
	}
	return id, nil
}

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
