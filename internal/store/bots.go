package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Bot is a contestant's bot: a name under an owner, for one game, with the
// version that currently plays.
type Bot struct {
	ID        int64
	OwnerID   int64
	OwnerName string
	Name      string
	Game      string
	Language  string
	Disabled  bool
	House     bool
	// Paused bots are off the ladder by their owner's choice; Retired is
	// a Disabled bot its owner retired (and may bring back).
	Paused  bool
	Retired bool
	// FaultStoppedAt is when the bot left the ladder after too many
	// ranked matches in a row lost by a fault, with FaultStopReason; nil
	// while it plays.
	FaultStoppedAt  *time.Time
	FaultStopReason string
	// CurrentVersionID is the newest version whose build succeeded; nil
	// until one has.
	CurrentVersionID *int64
	CreatedAt        time.Time
}

// BotCreateParams are the fields of a new bot.
type BotCreateParams struct {
	OwnerID  int64
	Name     string
	Game     string
	Language string
	House    bool
}

// BotCreate records a bot. A name already used by the same owner (case
// folded) is ErrConflict.
func (s *Store) BotCreate(ctx context.Context, p BotCreateParams) (*Bot, error) {
	if p.Game == "" {
		// Which game a bot plays is the caller's to say (its manifest's).
		return nil, fmt.Errorf("store: create bot %q: no game", p.Name)
	}
	var id int64
	err := s.db.QueryRow(ctx, `
		INSERT INTO bots (owner_id, name, game, language, house) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		p.OwnerID, p.Name, p.Game, p.Language, p.House).Scan(&id)
	if err != nil {
		return nil, fmt.Errorf("store: create bot %q: %w", p.Name, interpretError(err))
	}
	return s.BotGetByID(ctx, id)
}

const botSelect = `
	SELECT b.id, b.owner_id, u.username, b.name, b.game, b.language, b.disabled, b.house,
	       b.paused, b.retired_at IS NOT NULL, b.current_version_id, b.created_at,
	       b.fault_stopped_at, b.fault_stop_reason
	FROM bots b JOIN users u ON u.id = b.owner_id`

func scanBot(row interface{ Scan(...any) error }) (*Bot, error) {
	var b Bot
	err := row.Scan(&b.ID, &b.OwnerID, &b.OwnerName, &b.Name, &b.Game, &b.Language, &b.Disabled, &b.House,
		&b.Paused, &b.Retired, &b.CurrentVersionID, &b.CreatedAt, &b.FaultStoppedAt, &b.FaultStopReason)
	if err != nil {
		return nil, interpretError(err)
	}
	return &b, nil
}

// BotGetByID returns a bot.
func (s *Store) BotGetByID(ctx context.Context, id int64) (*Bot, error) {
	b, err := scanBot(s.db.QueryRow(ctx, botSelect+` WHERE b.id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("store: get bot %d: %w", id, err)
	}
	return b, nil
}

// BotSetDisabled disables or re-enables a bot, as an organiser does. A
// disabled bot keeps its history but is not matched or challenged; a bot
// its owner had retired becomes the organiser's to bring back.
func (s *Store) BotSetDisabled(ctx context.Context, id int64, disabled bool) error {
	tag, err := s.db.Exec(ctx, `UPDATE bots SET disabled = $2, retired_at = NULL WHERE id = $1`, id, disabled)
	if err != nil {
		return fmt.Errorf("store: disable bot %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: disable bot %d: %w", id, ErrNotFound)
	}
	return nil
}

// BotSetHouse marks a bot as a house bot (always accepts challenges).
func (s *Store) BotSetHouse(ctx context.Context, id int64, house bool) error {
	tag, err := s.db.Exec(ctx, `UPDATE bots SET house = $2 WHERE id = $1`, id, house)
	if err != nil {
		return fmt.Errorf("store: set house flag of bot %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: set house flag of bot %d: %w", id, ErrNotFound)
	}
	return nil
}

// botNamesLockKey names the advisory lock that orders the creation of
// bots, so that two uploads cannot both take names that read alike.
const botNamesLockKey = 0x626f746e616d65 // "botname"

// BotNamesLock takes the bot names' lock until the transaction ends; run
// it in the transaction that creates the bot.
func (s *Store) BotNamesLock(ctx context.Context) error {
	if _, err := s.db.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, botNamesLockKey); err != nil {
		return fmt.Errorf("store: lock bot names: %w", err)
	}
	return nil
}

// BotExistsNamed reports whether owner has a bot of that name, in any
// letter case (an upload under it adds a version).
func (s *Store) BotExistsNamed(ctx context.Context, ownerID int64, name string) (bool, error) {
	var ok bool
	err := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM bots WHERE owner_id = $1 AND lower(name) = lower($2))`,
		ownerID, name).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("store: bot %q of user %d: %w", name, ownerID, err)
	}
	return ok, nil
}

// BotName is a bot's name with its owner, game and house flag.
type BotName struct {
	ID      int64
	OwnerID int64
	Name    string
	Game    string
	House   bool
}

// BotNamesAgainst lists the bots a new bot of owner in game must not be
// named like: the other users' bots of that game and every house bot.
func (s *Store) BotNamesAgainst(ctx context.Context, ownerID int64, game string) ([]BotName, error) {
	rows, err := s.db.Query(ctx, `
		SELECT id, owner_id, name, game, house FROM bots
		WHERE owner_id <> $1 AND (game = $2 OR house) ORDER BY id`, ownerID, game)
	if err != nil {
		return nil, fmt.Errorf("store: bot names of %s: %w", game, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (BotName, error) {
		var b BotName
		err := row.Scan(&b.ID, &b.OwnerID, &b.Name, &b.Game, &b.House)
		return b, err
	})
}

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
