package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Rating is a bot's current standing on its game's ladder.
type Rating struct {
	Rating     float64
	Deviation  float64
	Games      int
	Wins       int
	Losses     int
	Draws      int
	LastGameAt *time.Time
}

// Conservative is the rating the leaderboard sorts by: rating − 2 × deviation.
func (r Rating) Conservative() float64 { return r.Rating - 2*r.Deviation }

// BotDetail is a bot with its owner and rating, as the bot page shows it.
type BotDetail struct {
	ID       int64
	OwnerID  int64
	Owner    string
	Name     string
	Game     string
	Language string
	House    bool
	Disabled bool
	// Paused and Retired are its owner's choices (see BotSetPaused and
	// BotRetire); a retired bot is also Disabled.
	Paused  bool
	Retired bool
	// FaultStoppedAt is set while the bot is off the ladder for failing
	// (see MatchFinishParams.StopAfter), with FaultStopReason.
	FaultStoppedAt   *time.Time
	FaultStopReason  string
	CurrentVersionID *int64
	CurrentVersion   int
	CreatedAt        time.Time
	// Rating is nil until the bot has played a rated match.
	Rating *Rating
}

// BotVersionRow is one uploaded version of a bot.
type BotVersionRow struct {
	ID           int64
	Number       int
	BotType      string
	SourceSize   int64
	SourceSHA256 string
	BuildStatus  string
	BuildLog     string
	CreatedAt    time.Time
	BuiltAt      *time.Time
}

// UploadParams describe one checked bot zip to record as a new version.
type UploadParams struct {
	OwnerID      int64
	Name         string
	Game         string
	Language     string
	BotType      string
	Manifest     json.RawMessage
	SourceSHA256 string
	SourceSize   int64
	House        bool
	// SourceKey returns the blob key of the zip, once the ids are known.
	SourceKey func(botID int64, number int) string
}

// UploadResult is what UploadRecord created.
type UploadResult struct {
	BotID     int64
	VersionID int64
	Number    int
	SourceKey string
	NewBot    bool
}

// ErrGameMismatch is returned when a new version of a bot is for another game.
var ErrGameMismatch = fmt.Errorf("store: bot plays another game")

// UploadRecord finds the owner's bot of that name (in any letter case) or
// creates it, then adds the next immutable version. Run it in the same
// transaction as the blob write and the build job.
func (s *Store) UploadRecord(ctx context.Context, p UploadParams) (*UploadResult, error) {
	res := &UploadResult{}
	var game string
	err := s.db.QueryRow(ctx, `SELECT id, game FROM bots WHERE owner_id = $1 AND lower(name) = lower($2) FOR UPDATE`,
		p.OwnerID, p.Name).Scan(&res.BotID, &game)
	switch err = interpretError(err); {
	case err == ErrNotFound:
		err = s.db.QueryRow(ctx, `
			INSERT INTO bots (owner_id, name, game, language, house) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
			p.OwnerID, p.Name, p.Game, p.Language, p.House).Scan(&res.BotID)
		if err != nil {
			return nil, fmt.Errorf("store: create bot %q: %w", p.Name, interpretError(err))
		}
		res.NewBot = true
	case err != nil:
		return nil, fmt.Errorf("store: find bot %q: %w", p.Name, err)
	case game != p.Game:
		return nil, fmt.Errorf("store: bot %q plays %s, not %s: %w", p.Name, game, p.Game, ErrGameMismatch)
	}
	err = s.db.QueryRow(ctx, `SELECT coalesce(max(number), 0) + 1 FROM bot_versions WHERE bot_id = $1`, res.BotID).Scan(&res.Number)
	if err != nil {
		return nil, fmt.Errorf("store: next version of bot %d: %w", res.BotID, err)
	}
	res.SourceKey = p.SourceKey(res.BotID, res.Number)
	err = s.db.QueryRow(ctx, `
		INSERT INTO bot_versions (bot_id, number, manifest, bot_type, source_key, source_sha256, source_size)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		res.BotID, res.Number, p.Manifest, p.BotType, res.SourceKey, p.SourceSHA256, p.SourceSize).Scan(&res.VersionID)
	if err != nil {
		return nil, fmt.Errorf("store: add version %d of bot %d: %w", res.Number, res.BotID, interpretError(err))
	}
	// The language follows the newest upload.
	if _, err := s.db.Exec(ctx, `UPDATE bots SET language = $2 WHERE id = $1`, res.BotID, p.Language); err != nil {
		return nil, fmt.Errorf("store: set language of bot %d: %w", res.BotID, err)
	}
	return res, nil
}

// BotDetailGet returns a bot with its owner, current version and rating.
func (s *Store) BotDetailGet(ctx context.Context, id int64) (*BotDetail, error) {
	var b BotDetail
	var rating, deviation *float64
	var r Rating
	err := s.db.QueryRow(ctx, `
		SELECT b.id, b.owner_id, u.username, b.name, b.game, b.language, b.house, b.disabled,
		       b.paused, b.retired_at IS NOT NULL, b.current_version_id, coalesce(v.number, 0), b.created_at,
		       r.rating, r.deviation, coalesce(r.games, 0), coalesce(r.wins, 0), coalesce(r.losses, 0),
		       coalesce(r.draws, 0), r.last_game_at, b.fault_stopped_at, b.fault_stop_reason
		FROM bots b JOIN users u ON u.id = b.owner_id
		LEFT JOIN bot_versions v ON v.id = b.current_version_id
		LEFT JOIN ratings r ON r.bot_id = b.id AND r.ladder = b.game
		WHERE b.id = $1`, id).Scan(&b.ID, &b.OwnerID, &b.Owner, &b.Name, &b.Game, &b.Language, &b.House, &b.Disabled,
		&b.Paused, &b.Retired, &b.CurrentVersionID, &b.CurrentVersion, &b.CreatedAt,
		&rating, &deviation, &r.Games, &r.Wins, &r.Losses, &r.Draws, &r.LastGameAt, &b.FaultStoppedAt, &b.FaultStopReason)
	if err != nil {
		return nil, fmt.Errorf("store: get bot %d: %w", id, interpretError(err))
	}
	if rating != nil && deviation != nil {
		r.Rating, r.Deviation = *rating, *deviation
		b.Rating = &r
	}
	return &b, nil
}

// BotVersionRows lists a bot's versions, newest first.
func (s *Store) BotVersionRows(ctx context.Context, botID int64) ([]BotVersionRow, error) {
	rows, err := s.db.Query(ctx, `
		SELECT id, number, bot_type, source_size, source_sha256, build_status, build_log, created_at, built_at
		FROM bot_versions WHERE bot_id = $1 ORDER BY number DESC`, botID)
	if err != nil {
		return nil, fmt.Errorf("store: list versions of bot %d: %w", botID, err)
	}
	defer rows.Close()
	var out []BotVersionRow
	for rows.Next() {
		var v BotVersionRow
		if err := rows.Scan(&v.ID, &v.Number, &v.BotType, &v.SourceSize, &v.SourceSHA256, &v.BuildStatus,
			&v.BuildLog, &v.CreatedAt, &v.BuiltAt); err != nil {
			return nil, fmt.Errorf("store: list versions of bot %d: %w", botID, err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// BotOwnedRow is one of a user's bots, for choosing a challenger.
type BotOwnedRow struct {
	ID    int64
	Name  string
	Game  string
	Ready bool
}

// BotsOwnedBy lists a user's bots by name.
func (s *Store) BotsOwnedBy(ctx context.Context, userID int64) ([]BotOwnedRow, error) {
	rows, err := s.db.Query(ctx, `
		SELECT id, name, game, current_version_id IS NOT NULL AND NOT disabled
		FROM bots WHERE owner_id = $1 ORDER BY lower(name), id`, userID)
	if err != nil {
		return nil, fmt.Errorf("store: list bots of user %d: %w", userID, err)
	}
	defer rows.Close()
	var out []BotOwnedRow
	for rows.Next() {
		var b BotOwnedRow
		if err := rows.Scan(&b.ID, &b.Name, &b.Game, &b.Ready); err != nil {
			return nil, fmt.Errorf("store: list bots of user %d: %w", userID, err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// BotLatestSource returns the id of the owner's bot of that name and the
// sha256 of its newest version's zip; ErrNotFound when there is none.
func (s *Store) BotLatestSource(ctx context.Context, ownerID int64, name string) (int64, string, error) {
	var botID int64
	var sum string
	err := s.db.QueryRow(ctx, `
		SELECT b.id, v.source_sha256 FROM bots b JOIN bot_versions v ON v.bot_id = b.id
		WHERE b.owner_id = $1 AND lower(b.name) = lower($2)
		ORDER BY v.number DESC LIMIT 1`, ownerID, name).Scan(&botID, &sum)
	if err != nil {
		return 0, "", fmt.Errorf("store: newest version of bot %q: %w", name, interpretError(err))
	}
	return botID, sum, nil
}
