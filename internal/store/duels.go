package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Duel statuses.
const (
	DuelRunning  = "running"
	DuelFinished = "finished"
	DuelFailed   = "failed"
)

// Duel is one owner's duel between two bot versions (A and B).
type Duel struct {
	ID       int64
	OwnerID  int64
	Owner    string
	Game     string
	MapSize  int
	ABotID   int64
	ABotName string
	// AVersionID is the version's id, AVersion its number.
	AVersionID int64
	AVersion   int
	BBotID     int64
	BBotName   string
	BVersionID int64
	BVersion   int
	// BHouse says B is a house bot.
	BHouse     bool
	MasterSeed int64
	MaxGames   int
	Delta      float64
	Status     string
	// Verdict is "A better", "B better" or "undecided" once the duel is
	// finished, empty before.
	Verdict string
	// WinsA, WinsB and Draws are the games counted so far.
	WinsA, WinsB, Draws int
	// Error says why a failed duel stopped.
	Error      string
	CreatedAt  time.Time
	FinishedAt *time.Time
}

// DuelCreateParams are the fields of a new duel.
type DuelCreateParams struct {
	OwnerID            int64
	Game               string
	MapSize            int
	ABotID, AVersionID int64
	BBotID, BVersionID int64
	MasterSeed         int64
	MaxGames           int
	Delta              float64
}

// DuelCreate records a running duel. A second running duel of the same
// owner is ErrConflict.
func (s *Store) DuelCreate(ctx context.Context, p DuelCreateParams) (int64, error) {
	var id int64
	err := s.db.QueryRow(ctx, `
		INSERT INTO duels (owner_id, game, map_size, a_bot_id, a_version_id, b_bot_id, b_version_id,
		                   master_seed, max_games, delta)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		p.OwnerID, p.Game, p.MapSize, p.ABotID, p.AVersionID, p.BBotID, p.BVersionID,
		p.MasterSeed, p.MaxGames, p.Delta).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: create duel: %w", interpretError(err))
	}
	return id, nil
}

const duelSelect = `
	SELECT d.id, d.owner_id, u.username, d.game, d.map_size,
	       d.a_bot_id, ab.name, d.a_version_id, av.number,
	       d.b_bot_id, bb.name, d.b_version_id, bv.number, bb.house,
	       d.master_seed, d.max_games, d.delta, d.status, d.verdict,
	       d.wins_a, d.wins_b, d.draws, d.error, d.created_at, d.finished_at
	FROM duels d
	JOIN users u ON u.id = d.owner_id
	JOIN bots ab ON ab.id = d.a_bot_id
	JOIN bot_versions av ON av.id = d.a_version_id
	JOIN bots bb ON bb.id = d.b_bot_id
	JOIN bot_versions bv ON bv.id = d.b_version_id`

func scanDuel(row interface{ Scan(...any) error }) (*Duel, error) {
	var d Duel
	err := row.Scan(&d.ID, &d.OwnerID, &d.Owner, &d.Game, &d.MapSize,
		&d.ABotID, &d.ABotName, &d.AVersionID, &d.AVersion,
		&d.BBotID, &d.BBotName, &d.BVersionID, &d.BVersion, &d.BHouse,
		&d.MasterSeed, &d.MaxGames, &d.Delta, &d.Status, &d.Verdict,
		&d.WinsA, &d.WinsB, &d.Draws, &d.Error, &d.CreatedAt, &d.FinishedAt)
	if err != nil {
		return nil, interpretError(err)
	}
	return &d, nil
}

// DuelGetByID returns a duel.
func (s *Store) DuelGetByID(ctx context.Context, id int64) (*Duel, error) {
	d, err := scanDuel(s.db.QueryRow(ctx, duelSelect+` WHERE d.id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("store: duel %d: %w", id, err)
	}
	return d, nil
}

// DuelGetForUpdate returns a duel and locks its row until the transaction
// ends, so two results of one duel are counted one after the other.
func (s *Store) DuelGetForUpdate(ctx context.Context, id int64) (*Duel, error) {
	d, err := scanDuel(s.db.QueryRow(ctx, duelSelect+` WHERE d.id = $1 FOR UPDATE OF d`, id))
	if err != nil {
		return nil, fmt.Errorf("store: lock duel %d: %w", id, err)
	}
	return d, nil
}

// DuelList returns the owner's duels, newest first; botID, when not zero,
// keeps those in which that bot plays either side.
func (s *Store) DuelList(ctx context.Context, ownerID, botID int64, limit int) ([]Duel, error) {
	rows, err := s.db.Query(ctx, duelSelect+`
		WHERE d.owner_id = $1 AND ($2 = 0 OR d.a_bot_id = $2 OR d.b_bot_id = $2)
		ORDER BY d.id DESC LIMIT $3`, ownerID, botID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: duels of user %d: %w", ownerID, err)
	}
	defer rows.Close()
	var out []Duel
	for rows.Next() {
		d, err := scanDuel(rows)
		if err != nil {
			return nil, fmt.Errorf("store: duels of user %d: %w", ownerID, err)
		}
		out = append(out, *d)
	}
	return out, rows.Err()
}

// DuelGame is one game of a duel as recorded.
type DuelGame struct {
	// Index is the game's place in the duel's schedule, from 0.
	Index   int
	MatchID int64
	Seed    int64
	Status  string
	// Outcomes are the outcome of seat 0 and of seat 1 ("win", "loss",
	// "draw", empty before the end).
	Outcomes [2]string
	// Error says why a failed game could not be played.
	Error string
}

// DuelGames returns the games created for a duel, in schedule order.
func (s *Store) DuelGames(ctx context.Context, duelID int64) ([]DuelGame, error) {
	rows, err := s.db.Query(ctx, `
		SELECT m.duel_game, m.id, m.seed, m.status, m.error,
		       coalesce((SELECT outcome FROM match_players WHERE match_id = m.id AND seat = 0), ''),
		       coalesce((SELECT outcome FROM match_players WHERE match_id = m.id AND seat = 1), '')
		FROM matches m WHERE m.duel_id = $1 ORDER BY m.duel_game`, duelID)
	if err != nil {
		return nil, fmt.Errorf("store: games of duel %d: %w", duelID, err)
	}
	defer rows.Close()
	var out []DuelGame
	for rows.Next() {
		var g DuelGame
		if err := rows.Scan(&g.Index, &g.MatchID, &g.Seed, &g.Status, &g.Error, &g.Outcomes[0], &g.Outcomes[1]); err != nil {
			return nil, fmt.Errorf("store: games of duel %d: %w", duelID, err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// DuelUpdateParams are a duel's counted score and, once it ends, its
// status, verdict or error.
type DuelUpdateParams struct {
	ID                  int64
	Status              string
	Verdict             string
	WinsA, WinsB, Draws int
	Error               string
}

// DuelUpdate records a duel's score and status, stamps its end when the
// status is no longer running, and announces the change on duel_events
// (delivered when the transaction commits).
func (s *Store) DuelUpdate(ctx context.Context, p DuelUpdateParams) error {
	tag, err := s.db.Exec(ctx, `
		UPDATE duels SET status = $2, verdict = $3, wins_a = $4, wins_b = $5, draws = $6, error = $7,
		       finished_at = CASE WHEN $2 = 'running' THEN NULL ELSE coalesce(finished_at, now()) END
		WHERE id = $1`,
		p.ID, p.Status, p.Verdict, p.WinsA, p.WinsB, p.Draws, p.Error)
	if err != nil {
		return fmt.Errorf("store: update duel %d: %w", p.ID, interpretError(err))
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("store: update duel %d: %w", p.ID, ErrNotFound)
	}
	return s.duelNotify(ctx, p.ID, p.Status)
}

func (s *Store) duelNotify(ctx context.Context, id int64, status string) error {
	payload, _ := json.Marshal(DuelEvent{Duel: id, Status: status})
	if _, err := s.db.Exec(ctx, `SELECT pg_notify($1, $2)`, duelEventsChannel, string(payload)); err != nil {
		return fmt.Errorf("store: announce duel %d: %w", id, err)
	}
	return nil
}

// DuelCancelQueued cancels the duel's games still waiting in the queue,
// once its verdict is in: their jobs then find them ended and do nothing.
func (s *Store) DuelCancelQueued(ctx context.Context, duelID int64) (int, error) {
	tag, err := s.db.Exec(ctx, `
		UPDATE matches SET status = 'canceled', finished_at = now(), error = 'The duel ended before this game was played.'
		WHERE duel_id = $1 AND status = 'queued'`, duelID)
	if err != nil {
		return 0, fmt.Errorf("store: cancel queued games of duel %d: %w", duelID, err)
	}
	return int(tag.RowsAffected()), nil
}

// MatchDuelID returns the duel a match is a game of; ErrNotFound when it
// is none's.
func (s *Store) MatchDuelID(ctx context.Context, matchID int64) (int64, error) {
	var id *int64
	if err := s.db.QueryRow(ctx, `SELECT duel_id FROM matches WHERE id = $1`, matchID).Scan(&id); err != nil {
		return 0, fmt.Errorf("store: duel of match %d: %w", matchID, interpretError(err))
	}
	if id == nil {
		return 0, fmt.Errorf("store: duel of match %d: %w", matchID, ErrNotFound)
	}
	return *id, nil
}

// DuelEvent is a notification on the duel_events channel: a duel's score
// or status changed.
type DuelEvent struct {
	Duel   int64  `json:"duel"`
	Status string `json:"status"`
}

const duelEventsChannel = "duel_events"

// DuelEventsListen holds one connection listening on duel_events and
// calls fn for every event until ctx ends or the connection fails, and
// ready (when not nil) once it listens: what was committed before is not
// announced.
func (s *Store) DuelEventsListen(ctx context.Context, ready func(), fn func(DuelEvent)) error {
	return s.listenReady(ctx, duelEventsChannel, ready, func(payload []byte) {
		var ev DuelEvent
		if json.Unmarshal(payload, &ev) == nil && ev.Duel > 0 {
			fn(ev)
		}
	})
}

// DuelSide is a bot version that may play in a duel.
type DuelSide struct {
	BotID     int64
	BotName   string
	House     bool
	VersionID int64
	Version   int
	// Current says the version is the bot's playing one.
	Current bool
}

// DuelSides lists what the owner may duel with in game: every built
// version of their bots that are not disabled, newest first per bot, then
// the playing version of each house bot of the game.
func (s *Store) DuelSides(ctx context.Context, ownerID int64, game string) ([]DuelSide, error) {
	rows, err := s.db.Query(ctx, `
		SELECT b.id, b.name, b.house, v.id, v.number, b.current_version_id IS NOT DISTINCT FROM v.id
		FROM bots b JOIN bot_versions v ON v.bot_id = b.id
		WHERE b.game = $2 AND NOT b.disabled AND v.build_status = 'ok'
		  AND (b.owner_id = $1 OR (b.house AND b.current_version_id = v.id))
		ORDER BY b.house, lower(b.name), b.id, v.number DESC`, ownerID, game)
	if err != nil {
		return nil, fmt.Errorf("store: duel sides of user %d: %w", ownerID, err)
	}
	defer rows.Close()
	var out []DuelSide
	for rows.Next() {
		var d DuelSide
		if err := rows.Scan(&d.BotID, &d.BotName, &d.House, &d.VersionID, &d.Version, &d.Current); err != nil {
			return nil, fmt.Errorf("store: duel sides of user %d: %w", ownerID, err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
