// Package web is the portal's HTTP layer: server-rendered pages (templ
// components from web/page) and the JSON API under /api/. Handlers are
// methods on Handler, one per file; routes.go lists every route.
package web

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"
	"gocloud.dev/blob"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
)

// Queue puts build and match jobs on the queue inside the transaction that
// records what they work on.
type Queue interface {
	EnqueueBuildTx(ctx context.Context, tx pgx.Tx, versionID int64) error
	EnqueueMatchTx(ctx context.Context, tx pgx.Tx, matchID int64) error
}

// Inspection is what the portal learns from a checked bot zip.
type Inspection struct {
	// Name is the bot's display name from its manifest (NickName).
	Name     string
	Game     string
	BotType  string
	Language string
	// Manifest is the manifest as JSON, kept with the version.
	Manifest []byte
}

// Inspector checks an uploaded zip. Its errors are messages for the uploader.
type Inspector interface {
	Inspect(r io.ReaderAt, size int64) (Inspection, error)
}

// Config tunes the handlers.
type Config struct {
	// UploadMaxBytes is the largest bot zip accepted.
	UploadMaxBytes int64
	// CookieSecure forces the Secure flag of cookies; nil decides per request
	// (secure unless the request came over plain HTTP).
	CookieSecure *bool
	// SessionTTL is how long a login lasts.
	SessionTTL time.Duration
	// Games lists the rule sets with a leaderboard, the main one first.
	Games []string
	// ChallengeMapSize is the map size of challenge matches.
	ChallengeMapSize int
	// LoginAttempts failed log-ins per client address, or
	// LoginAccountAttempts for one username from anywhere, within
	// LoginWindow lock that address or account out until the window
	// passes. Zero or less: no limit of that kind.
	LoginAttempts        int
	LoginAccountAttempts int
	LoginWindow          time.Duration
	// RegisterAttempts registrations per client address within
	// RegisterWindow.
	RegisterAttempts int
	RegisterWindow   time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client (TRUSTED_PROXIES); from any other peer the header is
	// ignored.
	TrustedProxies []netip.Prefix
	// LeaderboardTTL is how long a leaderboard page, and the ladder queue
	// shown with it, is served from memory;
	// zero reads the database on every request.
	LeaderboardTTL time.Duration
}

// DefaultConfig returns the settings the portal runs with unless told otherwise.
func DefaultConfig() Config {
	return Config{
		UploadMaxBytes:   20 << 20,
		SessionTTL:       30 * 24 * time.Hour,
		Games:            []string{"entelect", "brainjar", "deepship", "hitandsunk"},
		ChallengeMapSize: 2,
		LoginAttempts:    10,
		// More than one address may try: an attacker with many
		// addresses still gets this few guesses an account.
		LoginAccountAttempts: 20,
		LoginWindow:          15 * time.Minute,
		RegisterAttempts:     10,
		RegisterWindow:       time.Hour,
		LeaderboardTTL:       2 * time.Second,
	}
}

// Handler serves the portal.
type Handler struct {
	store   *store.Store
	blobs   *blob.Bucket
	queue   Queue
	inspect Inspector
	logger  *slog.Logger
	cfg     Config
	logins  *limiter
	// registers counts registrations per address.
	registers *limiter
	board     *leaderboardCache
	now       func() time.Time
	// comp runs clans, challenges and battles; its refusals reach users
	// through compErr.
	comp *competition.Service
	// replays keeps opened replays for the viewer; live follows running
	// matches for their pages, builds the builds in progress.
	replays *replayCache
	live    *liveHub
	builds  *buildHub
}

// New returns the portal's handler.
func New(st *store.Store, blobs *blob.Bucket, queue Queue, inspect Inspector, logger *slog.Logger, cfg Config) *Handler {
	h := &Handler{
		store:     st,
		blobs:     blobs,
		queue:     queue,
		inspect:   inspect,
		logger:    logger,
		cfg:       cfg,
		logins:    newLimiter(cfg.LoginWindow),
		registers: newLimiter(cfg.RegisterWindow),
		now:       time.Now,
		replays:   newReplayCache(),
	}
	h.live = newLiveHub(st, logger)
	h.builds = newBuildHub(st, logger)
	h.board = newLeaderboardCache(cfg.LeaderboardTTL, h.now)
	h.comp = competition.New(st, queue, logger)
	for _, g := range cfg.Games {
		h.comp.DefaultMapSize[g] = cfg.ChallengeMapSize
	}
	return h
}

// compErr turns a competition refusal into a user error with a fitting
// status; other errors pass unchanged.
func compErr(err error) error {
	var ce *competition.Error
	if !errors.As(err, &ce) {
		return err
	}
	status := map[competition.Kind]int{
		competition.Invalid:   http.StatusUnprocessableEntity,
		competition.Forbidden: http.StatusForbidden,
		competition.Conflict:  http.StatusConflict,
		competition.TooMany:   http.StatusTooManyRequests,
		competition.NotFound:  http.StatusNotFound,
	}[ce.Kind]
	if status == 0 {
		status = http.StatusUnprocessableEntity
	}
	return &userError{status: status, msg: ce.Msg}
}
