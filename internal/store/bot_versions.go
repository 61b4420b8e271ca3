package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/event"
)

// Build statuses of a bot version.
const (
	BuildQueued   = "queued"
	BuildBuilding = "building"
	BuildOK       = "ok"
	BuildFailed   = "failed"
)

// ErrBuildDone is returned when a build outcome is recorded for a version
// whose build already finished: a version's outcome is written once.
var ErrBuildDone = errors.New("store: build already finished")

// BotVersion is one uploaded, immutable version of a bot.
type BotVersion struct {
	ID           int64
	BotID        int64
	Number       int
	Manifest     json.RawMessage
	BotType      string
	SourceKey    string
	SourceSHA256 string
	SourceSize   int64
	ArtifactKey  string
	BuildStatus  string
	BuildLog     string
	CreatedAt    time.Time
	BuiltAt      *time.Time
}

const botVersionSelect = `
	SELECT id, bot_id, number, manifest, bot_type, source_key, source_sha256, source_size,
	       artifact_key, build_status, build_log, created_at, built_at
	FROM bot_versions`

func scanBotVersion(row interface{ Scan(...any) error }) (*BotVersion, error) {
	var v BotVersion
	err := row.Scan(&v.ID, &v.BotID, &v.Number, &v.Manifest, &v.BotType, &v.SourceKey, &v.SourceSHA256, &v.SourceSize,
		&v.ArtifactKey, &v.BuildStatus, &v.BuildLog, &v.CreatedAt, &v.BuiltAt)
	if err != nil {
		return nil, interpretError(err)
	}
	return &v, nil
}

// BotVersionGetByID returns a version.
func (s *Store) BotVersionGetByID(ctx context.Context, id int64) (*BotVersion, error) {
	v, err := scanBotVersion(s.db.QueryRow(ctx, botVersionSelect+` WHERE id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("store: get bot version %d: %w", id, err)
	}
	return v, nil
}

// BotVersionGetByNumber returns version number of a bot.
func (s *Store) BotVersionGetByNumber(ctx context.Context, botID int64, number int) (*BotVersion, error) {
	v, err := scanBotVersion(s.db.QueryRow(ctx, botVersionSelect+` WHERE bot_id = $1 AND number = $2`, botID, number))
	if err != nil {
		return nil, fmt.Errorf("store: get version %d of bot %d: %w", number, botID, err)
	}
	return v, nil
}

// BotVersionStartBuild marks a version as building. A version whose build
// already finished is ErrBuildDone, so a duplicated build job stops early;
// one left "building" by a crashed worker may start again.
func (s *Store) BotVersionStartBuild(ctx context.Context, id int64) error {
	tag, err := s.db.Exec(ctx, `
		UPDATE bot_versions SET build_status = 'building'
		WHERE id = $1 AND build_status IN ('queued', 'building')`, id)
	if err != nil {
		return fmt.Errorf("store: start build of version %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		if _, err := s.BotVersionGetByID(ctx, id); err != nil {
			return err
		}
		return fmt.Errorf("store: start build of version %d: %w", id, ErrBuildDone)
	}
	return nil
}

// BuildResult is the outcome of building a version.
type BuildResult struct {
	// OK says whether the build succeeded.
	OK bool
	// Log is what the build printed, for the bot's owner.
	Log string
	// ArtifactKey is the blob key of the built folder; empty when failed.
	ArtifactKey string
}

// BotVersionFinishBuild records a build's outcome, once. A successful build
// becomes its bot's current version unless a newer version already built.
func (s *Store) BotVersionFinishBuild(ctx context.Context, id int64, r BuildResult) error {
	status := BuildFailed
	if r.OK {
		status = BuildOK
	}
	return s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		var botID int64
		var number int
		err := st.db.QueryRow(ctx, `
			UPDATE bot_versions SET build_status = $2, build_log = $3, artifact_key = $4, built_at = now()
			WHERE id = $1 AND build_status IN ('queued', 'building')
			RETURNING bot_id, number`, id, status, r.Log, r.ArtifactKey).Scan(&botID, &number)
		if err != nil {
			err = interpretError(err)
			if errors.Is(err, ErrNotFound) {
				if _, gerr := st.BotVersionGetByID(ctx, id); gerr != nil {
					return gerr
				}
				err = ErrBuildDone
			}
			return fmt.Errorf("store: finish build of version %d: %w", id, err)
		}
		if err := st.publishBuild(ctx, botID, number, r.OK); err != nil {
			return err
		}
		if !r.OK {
			return nil
		}
		_, err = st.db.Exec(ctx, `
			UPDATE bots b SET current_version_id = $2,
			       -- A new version that builds gets a fresh start on the ladder.
			       fault_streak = 0, fault_stopped_at = NULL, fault_stop_reason = ''
			WHERE b.id = $1 AND (b.current_version_id IS NULL OR
			      (SELECT number FROM bot_versions WHERE id = b.current_version_id) < $3)`,
			botID, id, number)
		if err != nil {
			return fmt.Errorf("store: make version %d current: %w", id, err)
		}
		return nil
	})
}

// publishBuild tells the bot's owner that a build of it ended.
func (s *Store) publishBuild(ctx context.Context, botID int64, number int, ok bool) error {
	var owner int64
	b := event.Bot{ID: botID}
	if err := s.db.QueryRow(ctx, `SELECT owner_id, name, game FROM bots WHERE id = $1`, botID).
		Scan(&owner, &b.Name, &b.Game); err != nil {
		return fmt.Errorf("store: owner of bot %d: %w", botID, interpretError(err))
	}
	return s.EventPublish(ctx, event.NewBuild(owner, ok, event.Build{Bot: b, Version: number}))
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
