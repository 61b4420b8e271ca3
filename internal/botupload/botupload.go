// Package botupload records uploaded bot zips as new immutable bot
// versions: it checks the zip, then writes the rows, the zip in the blob
// store and the build job together or not at all. The portal's pages, its
// API and the seeding of the house bots all upload through it.
package botupload

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/bytesize"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
)

// BuildQueue puts a version's build job on the queue inside the
// transaction that records the version. It reports whether it added a
// job: false means an unfinished build of the version already exists.
type BuildQueue interface {
	EnqueueBuildTx(ctx context.Context, tx pgx.Tx, versionID int64) (added bool, err error)
}

// Upload is one bot zip to record as a new version.
type Upload struct {
	OwnerID int64
	// Name is the bot's name; empty takes the manifest's NickName (or,
	// with BotID, keeps the bot's name).
	Name string
	// BotID, when set, adds the version to this bot of the owner's, and a
	// Name that differs renames it; otherwise the version goes to the
	// owner's bot called Name, made if there is none.
	BotID int64
	// Game, when set, is the game the uploader chose: a zip for another
	// game is refused, naming both.
	Game string
	Zip  io.Reader
	// Size is the zip's size as announced by the client, or -1.
	Size int64
	// House marks a starter bot of the house account.
	House bool
	// SkipUnchanged returns the bot's newest version instead of adding one
	// when the zip is byte for byte the same (for idempotent seeding).
	SkipUnchanged bool
}

// Result is the version an upload made.
type Result struct {
	BotID     int64
	VersionID int64
	Number    int
	// Unchanged is set when SkipUnchanged found the same zip already stored.
	Unchanged bool
}

// Kind classifies a refusal, so the caller can answer with a fitting status.
type Kind int

// Kinds of refusal.
const (
	// Invalid: the zip or the name cannot be accepted as sent.
	Invalid Kind = iota
	// TooLarge: the zip is over the size limit.
	TooLarge
	// Conflict: the name is taken by another game's bot, or another upload
	// of it is under way.
	Conflict
	// TooMany: the uploader is at a limit (uploads per hour, builds
	// waiting at once); RetryAfter says when to try again.
	TooMany
)

// Error is a refusal whose message is meant for the uploader.
type Error struct {
	Kind Kind
	Msg  string
	// RetryAfter, for TooMany, is how long until an upload may pass.
	RetryAfter time.Duration
}

func (e *Error) Error() string { return e.Msg }

func refuse(kind Kind, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Limits bound what one user may upload. The house account's uploads
// (the seeding of the starter bots) are bound by MaxBytes only.
type Limits struct {
	// MaxBytes is the largest zip accepted.
	MaxBytes int64
	// MaxQueuedBuilds is how many builds of one user may wait or run at
	// once (UPLOAD_MAX_QUEUED_BUILDS); zero or less: no limit.
	MaxQueuedBuilds int
	// PerHour is how many versions one user may upload within any hour
	// (UPLOAD_MAX_PER_HOUR); zero or less: no limit.
	PerHour int
}

// Service records uploads.
type Service struct {
	store   *store.Store
	blobs   *blob.Bucket
	queue   BuildQueue
	inspect Inspector
	logger  *slog.Logger
	limits  Limits
	rules   *game.Registry
	now     func() time.Time
}

// New returns a Service that accepts uploads within limits of bots for
// the games of rules.
func New(st *store.Store, blobs *blob.Bucket, queue BuildQueue, inspect Inspector, logger *slog.Logger, limits Limits, rules *game.Registry) *Service {
	return &Service{store: st, blobs: blobs, queue: queue, inspect: inspect, logger: logger, limits: limits, rules: rules, now: time.Now}
}

// Save checks a bot zip and records it as a new immutable version: the
// rows, the zip in the blob store and the build job land together or not
// at all. Its refusals are *Error, with a message for the uploader.
func (s *Service) Save(ctx context.Context, u Upload) (*Result, error) {
	// Checked first, before the zip is read, and again in the transaction
	// that records the version, where two uploads cannot both pass.
	if err := s.checkQuota(ctx, s.store, u); err != nil {
		return nil, err
	}
	data, err := s.readZip(u)
	if err != nil {
		return nil, err
	}
	insp, err := Check(data, u.Game, s.inspect, s.limits.MaxBytes, s.rules)
	if err != nil {
		return nil, err
	}
	name, rename, err := s.chooseName(ctx, u, insp)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	if u.SkipUnchanged {
		botID, last, err := s.store.BotLatestSource(ctx, u.OwnerID, name)
		if err == nil && last == digest {
			return &Result{BotID: botID, Unchanged: true}, nil
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	res, err := s.record(ctx, u, insp, name, rename, data, digest)
	if err != nil {
		return nil, err
	}
	s.logger.InfoContext(ctx, "bot version uploaded", "bot_id", res.BotID, "version_id", res.VersionID,
		"number", res.Number, "user_id", u.OwnerID)
	return &Result{BotID: res.BotID, VersionID: res.VersionID, Number: res.Number}, nil
}

// readZip reads the uploaded zip, refusing one over the size limit.
func (s *Service) readZip(u Upload) ([]byte, error) {
	max := s.limits.MaxBytes
	if u.Size > max {
		return nil, refuse(TooLarge, "The zip is %d bytes, larger than the limit of %s (%d bytes).", u.Size, bytesize.Format(max), max)
	}
	data, err := io.ReadAll(io.LimitReader(u.Zip, max+1))
	if err != nil {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	return data, nil
}

// chooseName is the name of the bot the version goes to: the one given,
// else the chosen bot's, else the manifest's. rename is the chosen bot
// when the upload gives it a new name.
func (s *Service) chooseName(ctx context.Context, u Upload, insp Inspection) (name string, rename *store.Bot, err error) {
	name = strings.TrimSpace(u.Name)
	if u.BotID != 0 {
		b, err := s.store.BotGetByID(ctx, u.BotID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return "", nil, err
		}
		if err != nil || b.OwnerID != u.OwnerID {
			return "", nil, refuse(Invalid, "Choose one of your bots to add the version to.")
		}
		if b.Game != insp.Game {
			return "", nil, refuse(Conflict, "%s plays %s; this zip is for %s.", b.Name, b.Game, insp.Game)
		}
		if name != "" && name != b.Name {
			rename = b
		} else {
			name = b.Name
		}
	}
	if name == "" {
		name = strings.TrimSpace(insp.Name)
	}
	if msg := ValidName(name); msg != "" {
		return "", nil, refuse(Invalid, "%s", msg)
	}
	return name, rename, nil
}

// record records the version in one transaction: its rows, its zip in
// the blob store and its build job. A zip stored by a transaction that
// fails is removed; the store's refusals become messages for the uploader.
func (s *Service) record(ctx context.Context, u Upload, insp Inspection, name string, rename *store.Bot, data []byte, digest string) (*store.UploadResult, error) {
	var res *store.UploadResult
	var written string
	err := s.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		if err := s.checkQuota(ctx, st, u); err != nil {
			return err
		}
		// The platform's own starters are named by the platform.
		if !u.House {
			if err := nameTaken(ctx, st, u.OwnerID, name, insp.Game); err != nil {
				return err
			}
		}
		if rename != nil {
			if err := st.BotRename(ctx, rename.ID, name); err != nil {
				return err
			}
		}
		var err error
		res, err = st.UploadRecord(ctx, store.UploadParams{
			OwnerID: u.OwnerID, Name: name, Game: insp.Game, Language: insp.Language, BotType: insp.BotType,
			Manifest: insp.Manifest, SourceSHA256: digest, SourceSize: int64(len(data)), House: u.House,
			SourceKey: blob.SourceKey,
		})
		if err != nil {
			return err
		}
		if err := blob.Put(ctx, s.blobs, res.SourceKey, bytes.NewReader(data), "application/zip"); err != nil {
			return fmt.Errorf("store zip of bot %d: %w", res.BotID, err)
		}
		written = res.SourceKey
		added, err := s.queue.EnqueueBuildTx(ctx, tx, res.VersionID)
		if err != nil {
			return err
		}
		if !added {
			// The version was recorded just now: no build of it can exist yet.
			return fmt.Errorf("enqueue build of new version %d: a build job of it already exists", res.VersionID)
		}
		return nil
	})
	if err != nil {
		if written != "" {
			// The rows are gone with the transaction; the zip must go too.
			if derr := s.blobs.Delete(context.WithoutCancel(ctx), written); derr != nil {
				s.logger.ErrorContext(ctx, "remove zip of failed upload", "key", written, "err", derr)
			}
		}
		var refusal *Error
		switch {
		case errors.As(err, &refusal):
			return nil, refusal
		case errors.Is(err, store.ErrGameMismatch):
			return nil, refuse(Conflict,
				"You already have a bot called %q for another game; this zip is for %s. Choose another name.", name, insp.Game)
		case rename != nil && errors.Is(err, store.ErrConflict):
			return nil, refuse(Conflict, "You already have a bot called %q; choose another name.", name)
		case errors.Is(err, store.ErrConflict):
			return nil, refuse(Conflict, "Another upload of %q is under way. Please try again.", name)
		}
		return nil, fmt.Errorf("save upload of %q: %w", name, err)
	}
	return res, nil
}

// Check runs the checks of an upload that need only the zip: its size
// (at most maxBytes), its contents and manifest, that it plays one of the
// games of rules, and chosen when one was chosen. Save runs them first,
// and the battleship command runs them before it uploads, so a refusal
// reads the same on both sides. Its refusals are *Error.
func Check(data []byte, chosen string, inspect Inspector, maxBytes int64, rules *game.Registry) (Inspection, error) {
	if int64(len(data)) > maxBytes {
		return Inspection{}, refuse(TooLarge, "The zip is larger than the limit of %s (%d bytes).", bytesize.Format(maxBytes), maxBytes)
	}
	if len(data) == 0 {
		return Inspection{}, refuse(Invalid, "Choose a zip file to upload: the file sent was empty.")
	}
	insp, err := inspect.Inspect(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		// The inspector's message is a whole sentence for the uploader.
		return Inspection{}, refuse(Invalid, "%s", err)
	}
	// Only a bot.json names its game; entry.zon and run.sh imply theirs.
	if err := (botmeta.Manifest{Game: insp.Game, Source: botmeta.BotJSON}).CheckGame(rules.Names()); err != nil {
		return Inspection{}, refuse(Invalid, "The zip was refused: %s", err)
	}
	if chosen != "" && chosen != insp.Game {
		return Inspection{}, refuse(Invalid, "This zip's %s says it plays %s, and you chose %s. Choose %s on the form, or see %s's getting started page for the manifest it expects.",
			manifestWord(rules, insp.Game), title(rules, insp.Game), title(rules, chosen), title(rules, insp.Game), title(rules, chosen))
	}
	return insp, nil
}

// checkQuota refuses an upload past the uploader's limits; st is the
// store, or the transaction that will record the version.
func (s *Service) checkQuota(ctx context.Context, st *store.Store, u Upload) error {
	if u.House || (s.limits.MaxQueuedBuilds <= 0 && s.limits.PerHour <= 0) {
		return nil
	}
	now := s.now()
	usage, err := st.UploadUsageLocked(ctx, u.OwnerID, now.Add(-time.Hour))
	if err != nil {
		return err
	}
	if n := s.limits.PerHour; n > 0 && usage.Recent >= n {
		wait := usage.OldestRecent.Add(time.Hour).Sub(now)
		return &Error{Kind: TooMany, RetryAfter: wait, Msg: fmt.Sprintf(
			"You uploaded %d versions in the last hour, the most allowed; the next upload is possible in %s.",
			usage.Recent, minutes(wait))}
	}
	if n := s.limits.MaxQueuedBuilds; n > 0 && usage.Unfinished >= n {
		return &Error{Kind: TooMany, RetryAfter: time.Minute, Msg: fmt.Sprintf(
			"You have %d builds waiting or running, the most allowed at once. "+
				"Upload again once one of them has finished (the bot pages show their progress).", usage.Unfinished)}
	}
	return nil
}

// minutes writes a wait for people, rounded up to the minute.
func minutes(d time.Duration) string {
	m := int((d + time.Minute - 1) / time.Minute)
	if m <= 1 {
		return "a minute"
	}
	return fmt.Sprintf("%d minutes", m)
}

// ValidName says what is wrong with a bot name, or "" when it is fine.
func ValidName(name string) string {
	switch {
	case name == "":
		return "Give the bot a name (or set NickName in its bot.json)."
	case utf8.RuneCountInString(name) > 64:
		return "Bot names have at most 64 characters."
	case strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return "Bot names cannot contain control characters."
	}
	return ""
}

// manifestWord names the manifest a game's bots bring: its own, where it
// has one, or bot.json, which every game reads.
func manifestWord(rules *game.Registry, name string) string {
	if rs, err := rules.Get(name); err == nil {
		if m := rs.Traits().Manifest; m != "" && m != botmeta.BotJSON {
			return m + " (or " + botmeta.BotJSON + ")"
		}
	}
	return botmeta.BotJSON
}

// title is a game's name as people write it.
func title(rules *game.Registry, name string) string {
	if rs, err := rules.Get(name); err == nil {
		return rs.Traits().Title
	}
	return name
}
