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
