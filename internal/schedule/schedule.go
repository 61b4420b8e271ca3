// Package schedule runs the competition's periodic work as River periodic
// jobs on a worker's client: starting and advancing battles, the ladder's
// matchmaking, and the nightly check of the ratings against their
// history. River's leader election makes sure one worker enqueues them.
package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/fleet"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
)

// QueueCompetition runs the competition's periodic work: starting and
// advancing battles, and the ladder's matchmaking.
const QueueCompetition = "competition"

// BattleTickArgs asks for due battles to start and running ones to advance.
type BattleTickArgs struct{}

// Kind is the stable job kind stored in river_job.
func (BattleTickArgs) Kind() string { return "battle_tick" }

// InsertOpts keeps at most one tick waiting or running.
func (BattleTickArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueCompetition, MaxAttempts: 1, UniqueOpts: jobs.WhileUnfinished()}
}

// LadderTickArgs asks the ladder's matchmaker to fill the queue.
type LadderTickArgs struct{}

// Kind is the stable job kind stored in river_job.
func (LadderTickArgs) Kind() string { return competition.LadderTickJob }

// InsertOpts keeps at most one tick waiting or running.
func (LadderTickArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueCompetition, MaxAttempts: 1, UniqueOpts: jobs.WhileUnfinished()}
}

// Config tunes the competition's periodic work.
type Config struct {
	Pool   *pgxpool.Pool
	Logger *slog.Logger
	// BattleEvery is how often due battles start and running ones are
	// checked (results also advance a battle at once, see AfterMatch).
	BattleEvery time.Duration
	// LadderEvery is how often the matchmaker runs; zero turns the ladder off.
	LadderEvery time.Duration
	// LadderGames are the games with a ladder.
	LadderGames []string
	// LadderSlots is how many ladder matches per game may wait in the
	// queue at once, so the ladder never crowds out battles and challenges.
	LadderSlots int
	// RatingCheckEvery runs the check of the ratings against their
	// history at this interval; zero runs it nightly at 03:00 UTC.
	RatingCheckEvery time.Duration
	// Rules are the games battles and ladder matches are played in.
	Rules *game.Registry
}

// Scheduler runs the periodic competition jobs. It has no River client of
// its own: the worker registers its jobs on the worker's client (see
// jobs.Deps.Scheduler), because River runs its maintenance, the rescue of jobs
// left by a dead worker included, on whichever client leads, and a client
// that does not know the match and build kinds would discard those jobs.
// River's leader election makes sure only one process enqueues the
// periodic jobs.
type Scheduler struct {
	svc *competition.Service
	cfg Config
}

// New returns a scheduler for jobs.Deps.Scheduler.
func New(cfg Config) (*Scheduler, error) {
	if cfg.Pool == nil {
		return nil, errors.New("schedule: scheduler needs a database pool")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.BattleEvery <= 0 {
		cfg.BattleEvery = 15 * time.Second
	}
	if cfg.LadderSlots <= 0 {
		cfg.LadderSlots = 4
	}

	return &Scheduler{cfg: cfg}, nil
}

// Names of the periodic jobs, as the admin console and /metrics show them.
const (
	periodicBattle = "battle_tick"
	periodicLadder = competition.LadderTickJob
)

// AddWorkers adds the tick workers and their queue and returns the
// periodic jobs. River's leader alone inserts periodic jobs, and each kind
// is unique while unfinished, so however many workers run, at most one
// tick of each kind waits or runs at a time.
func (s *Scheduler) AddWorkers(workers *river.Workers, queues map[string]river.QueueConfig) []*river.PeriodicJob {
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, _ *river.Job[BattleTickArgs]) error {
		return fleet.Recorded(ctx, s.cfg.Pool, s.cfg.Logger, periodicBattle, s.BattleTick)
	}))
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, job *river.Job[LadderTickArgs]) error {
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(job.ID)))
		return fleet.Recorded(ctx, s.cfg.Pool, s.cfg.Logger, periodicLadder, func(ctx context.Context) error { return s.LadderTick(ctx, rng) })
	}))
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, _ *river.Job[RatingCheckArgs]) error {
		return fleet.Recorded(ctx, s.cfg.Pool, s.cfg.Logger, periodicRatingCheck, s.RatingCheck)
	}))
	queues[QueueCompetition] = river.QueueConfig{MaxWorkers: 1}
	checkSchedule, _ := s.ratingCheckSchedule()
	periodic := []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(s.cfg.BattleEvery),
			func() (river.JobArgs, *river.InsertOpts) { return BattleTickArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(checkSchedule,
			func() (river.JobArgs, *river.InsertOpts) { return RatingCheckArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: s.cfg.RatingCheckEvery > 0}),
	}
	if s.ladderOn() {
		periodic = append(periodic, river.NewPeriodicJob(river.PeriodicInterval(s.cfg.LadderEvery),
			func() (river.JobArgs, *river.InsertOpts) { return LadderTickArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}))
	}
	return periodic
}

func (s *Scheduler) ladderOn() bool { return s.cfg.LadderEvery > 0 && len(s.cfg.LadderGames) > 0 }

// AfterBuildTx asks the ladder, inside the transaction of a build that
// succeeded, to match the bot at once: a new bot's placement games start
// without waiting for the next periodic tick. The tick is unique while
// unfinished, so a burst of builds adds at most one. It inserts with the
// client of the job it runs in (River's ClientFromContext).
func (s *Scheduler) AfterBuildTx(ctx context.Context, tx pgx.Tx) error {
	if !s.ladderOn() {
		return nil
	}
	if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertTx(ctx, tx, LadderTickArgs{}, nil); err != nil {
		return fmt.Errorf("ask for a ladder tick: %w", err)
	}
	return nil
}

// intervals are the periodic jobs this scheduler runs, by name.
func (s *Scheduler) intervals() map[string]time.Duration {
	_, checkEvery := s.ratingCheckSchedule()
	m := map[string]time.Duration{periodicBattle: s.cfg.BattleEvery, periodicRatingCheck: checkEvery}
	if s.ladderOn() {
		m[periodicLadder] = s.cfg.LadderEvery
	}
	return m
}

// RegisterRuns records the periodic jobs' intervals for the admin console.
func (s *Scheduler) RegisterRuns(ctx context.Context) error {
	st := store.New(s.cfg.Pool)
	for name, every := range s.intervals() {
		if err := st.PeriodicRegister(ctx, name, every); err != nil {
			return err
		}
	}
	return nil
}

// Attach gives the scheduler the client its matches are enqueued with.
func (s *Scheduler) Attach(c *jobs.Client) {
	s.svc = competition.New(store.New(s.cfg.Pool), c, s.cfg.Logger, s.cfg.Rules)
}

// BattleTick starts due battles and advances running ones. Advancing is
// idempotent, so a tick that overlaps a result's AfterMatch is harmless.
func (s *Scheduler) BattleTick(ctx context.Context) error {
	if err := s.svc.StartDueBattles(ctx); err != nil {
		return err
	}
	battles, err := store.New(s.cfg.Pool).BattleList(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, b := range battles {
		if b.Status != "running" {
			continue
		}
		if err := s.svc.AdvanceBattle(ctx, b.ID); err != nil {
			errs = append(errs, fmt.Errorf("advance battle %d: %w", b.ID, err))
		}
	}
	return errors.Join(errs...)
}

// LadderTick tops up every game's ladder queue to LadderSlots matches.
// Two workers' ticks never match the same bots at once: the one that finds
// the ladder's lock taken does nothing.
func (s *Scheduler) LadderTick(ctx context.Context, rng *rand.Rand) error {
	_, err := store.New(s.cfg.Pool).WithLadderLock(ctx, func(ctx context.Context) error {
		return s.ladderTick(ctx, rng)
	})
	if err != nil {
		return fmt.Errorf("ladder tick: %w", err)
	}
	return nil
}

func (s *Scheduler) ladderTick(ctx context.Context, rng *rand.Rand) error {
	for _, g := range s.cfg.LadderGames {
		pending, err := store.New(s.cfg.Pool).LadderPending(ctx, g)
		if err != nil {
			return err
		}
		// With no free slot the tick still runs, to refresh the saved queue.
		free := max(0, s.cfg.LadderSlots-pending)
		n, err := s.svc.LadderTick(ctx, g, free, rng)
		if err != nil {
			return err
		}
		if n > 0 {
			s.cfg.Logger.Info("ladder: matches created", "game", g, "matches", n)
		}
	}
	return nil
}

// AfterMatch advances the battle a finished match belongs to, so the next
// round starts without waiting for the periodic tick. It is meant for
// jobs.Deps.AfterMatch; errors are logged, and the next tick retries.
// Only a match of kind battle belongs to one: any other costs nothing.
func (s *Scheduler) AfterMatch(ctx context.Context, matchID int64, kind string) {
	if kind != "battle" {
		return
	}
	id, err := store.New(s.cfg.Pool).BattleIDForMatch(ctx, matchID)
	if errors.Is(err, store.ErrNotFound) {
		return
	}
	if err == nil {
		err = s.svc.AdvanceBattle(ctx, id)
	}
	if err != nil {
		s.cfg.Logger.Warn("advance battle after match", "match_id", matchID, "err", err)
	}
}
