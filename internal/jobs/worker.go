package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/build"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// Builder builds a bot folder (internal/build).
type Builder interface {
	Build(ctx context.Context, dir string, m botmeta.Manifest) (build.Result, error)
}

// Deps is what a worker needs.
type Deps struct {
	Pool   *pgxpool.Pool
	Bucket *blob.Bucket
	Logger *slog.Logger
	// Builder builds bot versions; nil runs no build jobs.
	Builder Builder
	// Games are the rule sets matches are played with.
	Games *game.Registry
	// Bwrap confines bots during matches, one session per bot; nil runs
	// them on the host (development only: SANDBOX=off).
	Bwrap *sandbox.Bwrap
	// TurnLimits bound each bot turn (zero fields: the runner's defaults).
	TurnLimits sandbox.Limits
	// NoTimeLimits lifts the rule sets' time limits, as the battleship
	// command's --nolimit does: for tests that compare results on a busy
	// machine, never for a ladder.
	NoTimeLimits bool
	// WorkDir holds the per-job folders; empty means the system's temp.
	WorkDir string
	// MatchConcurrency and BuildConcurrency are how many jobs of each kind
	// run at once in this process.
	MatchConcurrency int
	BuildConcurrency int
	Timeouts         Timeouts
	// ShutdownGrace is how long Stop waits for running jobs before
	// canceling them; canceled jobs go back to the queue and are retried.
	ShutdownGrace time.Duration
	// Metrics, when set, counts jobs and their durations.
	Metrics *Metrics
	// AfterMatch, when set, is called after a match's result is committed
	// (the competition layer advances battles from it).
	AfterMatch func(ctx context.Context, matchID int64)
	// Scheduler, when set, runs the competition's periodic jobs (battle
	// and ladder ticks) on this worker's client.
	Scheduler *Scheduler
}

// Worker runs build and match jobs.
type Worker struct {
	river *river.Client[pgx.Tx]
	deps  Deps
}

// NewWorker returns a worker; Start begins fetching jobs.
func NewWorker(deps Deps) (*Worker, error) {
	if deps.Pool == nil || deps.Bucket == nil {
		return nil, errors.New("jobs: worker needs a database pool and a blob bucket")
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.Timeouts == (Timeouts{}) {
		deps.Timeouts = DefaultTimeouts()
	}
	if deps.WorkDir == "" {
		deps.WorkDir = os.TempDir()
	}
	if err := os.MkdirAll(deps.WorkDir, 0o755); err != nil {
		return nil, fmt.Errorf("jobs: work folder: %w", err)
	}
	workers := river.NewWorkers()
	queues := map[string]river.QueueConfig{}
	if deps.Games != nil && deps.MatchConcurrency > 0 {
		seats, err := newSeatRunners(deps)
		if err != nil {
			return nil, err
		}
		river.AddWorker(workers, &MatchWorker{deps: deps, seat: seats})
		queues[QueueMatch] = river.QueueConfig{MaxWorkers: deps.MatchConcurrency}
	}
	if deps.Builder != nil && deps.BuildConcurrency > 0 {
		river.AddWorker(workers, &BuildWorker{deps: deps})
		queues[QueueBuild] = river.QueueConfig{MaxWorkers: deps.BuildConcurrency}
	}
	var periodic []*river.PeriodicJob
	if deps.Scheduler != nil {
		periodic = deps.Scheduler.register(workers)
		queues[QueueCompetition] = river.QueueConfig{MaxWorkers: 1}
	}
	if len(queues) == 0 {
		return nil, errors.New("jobs: worker has nothing to run (no rule sets or builder, or zero concurrency)")
	}
	rc, err := river.NewClient(riverpgxv5.New(deps.Pool), &river.Config{
		Queues:               queues,
		Workers:              workers,
		Logger:               deps.Logger,
		JobTimeout:           max(deps.Timeouts.Build, deps.Timeouts.Match),
		RescueStuckJobsAfter: deps.Timeouts.rescueAfter(),
		SoftStopTimeout:      deps.ShutdownGrace,
		PeriodicJobs:         periodic,
		// Retries of a match start soon: most failures are a lost worker.
		RetryPolicy: &retryPolicy{},
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: new worker: %w", err)
	}
	if deps.Scheduler != nil {
		deps.Scheduler.attach(&Client{river: rc})
	}
	return &Worker{river: rc, deps: deps}, nil
}

// Start begins fetching and running jobs until ctx ends or Stop is called.
// When ctx ends the worker stops gracefully (see Deps.ShutdownGrace).
func (w *Worker) Start(ctx context.Context) error {
	if err := w.river.Start(ctx); err != nil {
		return fmt.Errorf("jobs: start worker: %w", err)
	}
	return nil
}

// Stop stops fetching and waits for running jobs; after ShutdownGrace
// their contexts are canceled and they return to the queue.
func (w *Worker) Stop(ctx context.Context) error {
	return w.river.Stop(ctx)
}

// Stopped is closed once the worker has fully stopped.
func (w *Worker) Stopped() <-chan struct{} { return w.river.Stopped() }

// retryPolicy retries after a short, growing delay (5 s, 20 s, 45 s, ...)
// instead of River's default, which waits longer than a match lasts.
type retryPolicy struct{}

func (retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	n := time.Duration(max(job.Attempt, 1))
	return time.Now().Add(5 * time.Second * n * n)
}
