// Package web is the portal's HTTP layer: server-rendered pages (templ
// components from web/page) and the JSON API under /api/. Handlers are
// methods on Handler, one per file; routes.go lists every route.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"
	"gocloud.dev/blob"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
)

// Queue puts build and match jobs on the queue inside the transaction that
// records what they work on. Each reports whether it added a job: false
// means an unfinished job of the same version or match already waits or
// runs.
type Queue interface {
	EnqueueBuildTx(ctx context.Context, tx pgx.Tx, versionID int64) (added bool, err error)
	EnqueueMatchTx(ctx context.Context, tx pgx.Tx, matchID int64) (added bool, err error)
}

// enqueueNewMatch enqueues a match just recorded in tx: no job of it can
// exist yet, so a skipped duplicate means the queue is not what it seems.
func enqueueNewMatch(ctx context.Context, q Queue, tx pgx.Tx, matchID int64) error {
	added, err := q.EnqueueMatchTx(ctx, tx, matchID)
	if err != nil {
		return err
	}
	if !added {
		return fmt.Errorf("enqueue new match %d: a job of it already exists", matchID)
	}
	return nil
}

// Config tunes the handlers.
type Config struct {
	// UploadMaxBytes is the largest bot zip accepted.
	UploadMaxBytes int64
	// UploadMaxQueuedBuilds bounds one user's builds waiting or running,
	// UploadsPerHour one user's uploads within an hour; zero: no limit.
	UploadMaxQueuedBuilds int
	UploadsPerHour        int
	// CookieSecure forces the Secure flag of cookies; nil decides per request
	// (secure unless the request came over plain HTTP).
	CookieSecure *bool
	// SessionTTL is how long a login lasts.
	SessionTTL time.Duration
	// Games lists the rule sets with a leaderboard, the main one first.
	Games []string
	// Rules answers what pages need to know of each game (seat keys,
	// map sizes, battle formats).
	Rules *game.Registry
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
	// LeaderboardTTL is how long the lists every visitor reads alike are
	// served from memory: a leaderboard page, the ladder queue shown with
	// it, the matches being played (home page and leaderboard), the match
	// list and the front page's latest matches, and a head-to-head page;
	// zero reads the database on every request.
	LeaderboardTTL time.Duration
	// StreamsPerClient is how many event streams (live matches, build
	// logs) one client address (an IPv6 /64) may hold open at once; zero
	// or less sets no bound.
	StreamsPerClient int
	// ReplayDownloadsPerClient is how many replay downloads one client
	// (an account when logged in, else an address or IPv6 /64) may have
	// under way at once; zero or less sets no bound.
	ReplayDownloadsPerClient int
	// Notifier checks webhook URLs and starts e-mail verifications; nil
	// offers webhooks (with the production URL rules) and no e-mail.
	Notifier Notifier
}

// Notifier is what the notification settings need of internal/notify.
type Notifier interface {
	// EmailOn reports whether the platform sends e-mail.
	EmailOn() bool
	// CheckURL refuses a webhook URL the platform will not call.
	CheckURL(raw string) error
	// SetEmail sets the user's address, unverified, and queues the
	// verification e-mail.
	SetEmail(ctx context.Context, userID int64, address string) error
}

// DefaultConfig returns the settings the portal runs with unless told
// otherwise, for the games of rules.
func DefaultConfig(rules *game.Registry) Config {
	return Config{
		UploadMaxBytes: 20 << 20,
		// A build and the next two fixes of it.
		UploadMaxQueuedBuilds: 3,
		UploadsPerHour:        20,
		SessionTTL:            30 * 24 * time.Hour,
		Games:                 mainFirst(rules.Names(), botmeta.DefaultGame),
		Rules:                 rules,
		ChallengeMapSize:      2,
		LoginAttempts:         10,
		// More than one address may try: an attacker with many
		// addresses still gets this few guesses an account.
		LoginAccountAttempts: 20,
		LoginWindow:          15 * time.Minute,
		RegisterAttempts:     10,
		RegisterWindow:       time.Hour,
		LeaderboardTTL:       2 * time.Second,
		// A few people watching from one address (a team, a school
		// behind one router), each with a few pages open.
		StreamsPerClient: 32,
		// A replay and the next one; each download holds a little
		// memory and a connection to the bucket while it lasts.
		ReplayDownloadsPerClient: 2,
	}
}

// UploadLimits are the limits of the upload service.
func (c Config) UploadLimits() botupload.Limits {
	return botupload.Limits{MaxBytes: c.UploadMaxBytes, MaxQueuedBuilds: c.UploadMaxQueuedBuilds, PerHour: c.UploadsPerHour}
}

// mainFirst returns names with main moved to the front.
func mainFirst(names []string, main string) []string {
	out := []string{main}
	for _, n := range names {
		if n != main {
			out = append(out, n)
		}
	}
	return out
}

// Handler serves the portal.
type Handler struct {
	store   *store.Store
	blobs   *blob.Bucket
	queue   Queue
	uploads *botupload.Service
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
	replays  *replayCache
	live     *liveHub
	builds   *buildHub
	duelLive *duelHub
	// streams counts the event streams open per client.
	streams *streamLimit
	// downloads counts the replay downloads under way per client.
	downloads *streamLimit
	// docs are the embedded documentation, rendered on first use.
	docs *docSet
}

// New returns the portal's handler.
func New(st *store.Store, blobs *blob.Bucket, queue Queue, inspect botupload.Inspector, logger *slog.Logger, cfg Config) *Handler {
	h := &Handler{
		store:     st,
		blobs:     blobs,
		queue:     queue,
		uploads:   botupload.New(st, blobs, queue, inspect, logger, cfg.UploadLimits(), cfg.Rules),
		logger:    logger,
		cfg:       cfg,
		logins:    newLimiter(cfg.LoginWindow),
		registers: newLimiter(cfg.RegisterWindow),
		now:       time.Now,
		replays:   newReplayCache(),
		streams:   newStreamLimit(cfg.StreamsPerClient),
		downloads: newStreamLimit(cfg.ReplayDownloadsPerClient),
		docs:      &docSet{},
	}
	h.live = newLiveHub(st, logger)
	h.builds = newBuildHub(st, logger)
	h.duelLive = newDuelHub(h)
	h.board = newLeaderboardCache(cfg.LeaderboardTTL, h.now)
	h.comp = competition.New(st, queue, logger, cfg.Rules)
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
