// Package competition runs the competition around single matches: it turns
// challenges into matches, keeps the ranked ladder playing, and schedules
// and concludes battles. Every match it creates is enqueued in the same
// transaction that records it.
package competition

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/ladder"
	"github.com/broadside/broadside/internal/store"
)

// Enqueuer puts match jobs on the queue inside a transaction. It reports
// whether it added a job: false means an unfinished job of the match
// already waits or runs.
type Enqueuer interface {
	EnqueueMatchTx(ctx context.Context, tx pgx.Tx, matchID int64) (added bool, err error)
}

// Error is a refusal a user can act on: its message is safe to show.
type Error struct {
	Msg string
	// Kind says why, so the web layer can answer with a fitting status.
	Kind Kind
}

// Kind classifies a refusal.
type Kind int

// Kinds of refusal; Invalid is the default.
const (
	Invalid   Kind = iota // the request cannot be done as asked
	Forbidden             // the user may not do this
	Conflict              // the state of things does not allow it now
	TooMany               // a rate limit
	NotFound              // the thing named does not exist
)

func (e *Error) Error() string { return e.Msg }

func refuse(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

func refuseAs(kind Kind, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), Kind: kind}
}

// IsRefusal reports whether err is a user-facing refusal.
func IsRefusal(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Service drives challenges, the ladder and battles.
type Service struct {
	store  *store.Store
	queue  Enqueuer
	logger *slog.Logger
	now    func() time.Time
	// Ladder tunes matchmaking.
	Ladder ladder.Config
	// ChallengesPerHour limits how many challenges one user may send.
	ChallengesPerHour int
	// DefaultMapSize is the map size of ladder and challenge matches, per
	// game; a game not named here plays its rule set's LadderMapSize.
	DefaultMapSize map[string]int
	// Rules answers what battles and matches need to know of each game.
	Rules *game.Registry
}

// New returns a Service for the games of rules.
func New(st *store.Store, queue Enqueuer, logger *slog.Logger, rules *game.Registry) *Service {
	return &Service{
		store:             st,
		queue:             queue,
		logger:            logger,
		now:               time.Now,
		Ladder:            ladder.DefaultConfig(),
		ChallengesPerHour: 30,
		DefaultMapSize:    map[string]int{},
		Rules:             rules,
	}
}

// createMatch records a match and enqueues it in one transaction.
func (s *Service) createMatch(ctx context.Context, st *store.Store, tx pgx.Tx, p store.MatchCreateParams) (int64, error) {
	return createMatch(ctx, st, tx, s.queue, p)
}

// createMatch records a match and enqueues it on queue in one transaction.
func createMatch(ctx context.Context, st *store.Store, tx pgx.Tx, queue Enqueuer, p store.MatchCreateParams) (int64, error) {
	m, err := st.MatchCreate(ctx, p)
	if err != nil {
		return 0, err
	}
	added, err := queue.EnqueueMatchTx(ctx, tx, m.ID)
	if err != nil {
		return 0, fmt.Errorf("enqueue match %d: %w", m.ID, err)
	}
	if !added {
		// The match was recorded just now: no job of it can exist yet.
		return 0, fmt.Errorf("enqueue match %d: a job of the new match already exists", m.ID)
	}
	return m.ID, nil
}

func (s *Service) mapSize(game string) int {
	if v, ok := s.DefaultMapSize[game]; ok {
		return v
	}
	return s.traits(game).LadderMapSize
}

// traits returns what the rule set of game answers; an unknown game (one
// no longer hosted) answers nothing.
func (s *Service) traits(name string) game.Traits {
	rs, err := s.Rules.Get(name)
	if err != nil {
		return game.Traits{}
	}
	return rs.Traits()
}

// deriveSeed mixes a base seed with indexes (splitmix64), so every game of
// a battle has its own reproducible seed.
func deriveSeed(base int64, parts ...int64) int64 {
	x := uint64(base)
	for _, p := range parts {
		x ^= uint64(p) + 0x9e3779b97f4a7c15 + (x << 6) + (x >> 2)
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		x = z ^ (z >> 31)
	}
	return int64(x & 0x7fffffffffffffff)
}
