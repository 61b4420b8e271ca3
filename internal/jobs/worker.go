package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/build"
	"github.com/broadside/broadside/internal/fleet"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/store"
)

// Builder builds a bot folder (internal/build).
type Builder interface {
	// BuildLive builds and hands the log to progress as it grows.
	BuildLive(ctx context.Context, dir string, m botmeta.Manifest, progress func(ctx context.Context, chunk string)) (build.Result, error)
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
	// TurnLimits bound each bot turn; zero fields take
	// sandbox.TurnDefaults, so no worker plays a bot without a memory and
	// a process bound.
	TurnLimits sandbox.Limits
	// NoTimeLimits lifts the rule sets' time limits, as the battleship
	// command's --nolimit does: for tests that compare results on a busy
	// machine, never for a ladder.
	NoTimeLimits bool
	// LiveEvery is how often a running match's rounds are published for
	// the live viewer at most; zero means DefaultLiveEvery.
	LiveEvery time.Duration
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
	// LadderPauseAfter is how many ranked matches in a row a bot may lose
	// by a crash, a time-out or a forfeit before it leaves the ladder
	// (LADDER_PAUSE_AFTER); 0 never takes one off.
	LadderPauseAfter int
	// Metrics, when set, counts jobs and their durations.
	Metrics *Metrics
	// AfterMatch, when set, is called after a match's result is committed,
	// with the match's kind (the competition layer advances battles from
	// it).
	AfterMatch func(ctx context.Context, matchID int64, kind string)
	// DuelFinished, when set, is called once a duel has its verdict or
	// stopped failing, after the transaction that recorded it committed:
	// the hook for telling its owner. A worker that stops in between
	// skips it; the duel's record is complete either way.
	DuelFinished func(ctx context.Context, duelID int64)
	// Scheduler, when set, runs the competition's periodic jobs (battle,
	// ladder and rating-check ticks, see internal/schedule) on this
	// worker's client.
	Scheduler Scheduler
	// WorkerID names this process in heartbeats and as River's client id
	// (so a job's attempted_by names the worker running it); empty makes
	// one from the host name, the pid and a random suffix.
	WorkerID string
	// HeartbeatEvery is how often the worker records that it is alive and
	// looks for the jobs of dead workers; zero means
	// fleet.DefaultHeartbeatEvery.
	HeartbeatEvery time.Duration
	// DeadAfter is how long a worker may go without a heartbeat before its
	// running jobs are run again elsewhere; zero means
	// fleet.DefaultDeadAfter. It must exceed HeartbeatEvery by a safe
	// margin.
	DeadAfter time.Duration
	// Sandbox names the confinement for the admin console's worker list.
	Sandbox string
	// Addons run job kinds of other packages (notifications) on this
	// worker's River client.
	Addons []Addon
}

// Addon adds job kinds to the worker: AddWorkers registers them and their
// queues before the River client exists, Attach hands it the client once
// made, for inserting its jobs.
type Addon interface {
	AddWorkers(workers *river.Workers, queues map[string]river.QueueConfig)
	Attach(rc *river.Client[pgx.Tx])
}

// Scheduler runs periodic jobs on the worker's River client
// (internal/schedule). It has no client of its own because River runs its
// maintenance, the rescue of stuck jobs included, on whichever client
// leads, and a client that does not know the match and build kinds would
// discard those jobs.
type Scheduler interface {
	// AddWorkers registers the periodic jobs' kinds and queues before the
	// River client exists, and returns the periodic jobs for its config.
	AddWorkers(workers *river.Workers, queues map[string]river.QueueConfig) []*river.PeriodicJob
	// Attach hands it the worker's client once made, for enqueueing.
	Attach(c *Client)
	// RegisterRuns records the periodic jobs' intervals for the admin
	// console, when the worker starts.
	RegisterRuns(ctx context.Context) error
	// AfterBuildTx runs inside the transaction of a build job that
	// succeeded, from within the job (the ladder asks for a tick).
	AfterBuildTx(ctx context.Context, tx pgx.Tx) error
}

// Worker runs build and match jobs.
type Worker struct {
	river *river.Client[pgx.Tx]
	deps  Deps
	dir   *workDir
	// fleet sends the worker's heartbeats and rescues dead workers' jobs.
	fleet *fleet.Member
	// live hears which matches somebody follows; nil where the worker
	// knows no rule set, not listening where it plays no matches.
	live *liveWatch
}

// NewWorker returns a worker; Start begins fetching jobs.
func NewWorker(deps Deps) (*Worker, error) {
	if deps.Pool == nil || deps.Bucket == nil {
		return nil, errors.New("jobs: worker needs a database pool and a blob bucket")
	}
	deps = deps.withDefaults()
	dir, swept, err := claimWorkDir(deps.WorkDir, deps.WorkerID)
	if err != nil {
		return nil, err
	}
	for _, d := range swept {
		deps.Logger.Info("removed the work folder of a worker that is gone", "folder", d)
	}
	// Every job folder lives in this process's own folder.
	deps.WorkDir = dir.path
	workers := river.NewWorkers()
	queues := map[string]river.QueueConfig{}
	// The match kind is known even where this process plays no matches:
	// River refuses to insert a kind its client does not know, and the
	// periodic ticks this worker may run as leader insert matches.
	var live *liveWatch
	if deps.Games != nil {
		seats, err := newSeatRunners(deps)
		if err != nil {
			_ = dir.release()
			return nil, err
		}
		live = newLiveWatch()
		river.AddWorker(workers, &MatchWorker{deps: deps, seat: seats, live: live})
		if deps.MatchConcurrency > 0 {
			queues[QueueMatch] = river.QueueConfig{MaxWorkers: deps.MatchConcurrency}
		}
	}
	if deps.Builder != nil && deps.BuildConcurrency > 0 {
		if b, ok := deps.Builder.(*build.Builder); ok && b.GoSeed == nil && b.GoCache == "" {
			// Go builds start from the standard library compiled once by
			// this process, kept in its folder (removed with it).
			seeded := *b
			seeded.GoSeed = build.NewGoSeed(filepath.Join(dir.path, "go-seed"), deps.Logger)
			deps.Builder = &seeded
		}
		river.AddWorker(workers, &BuildWorker{deps: deps})
		queues[QueueBuild] = river.QueueConfig{MaxWorkers: deps.BuildConcurrency}
	}
	for _, a := range deps.Addons {
		a.AddWorkers(workers, queues)
	}
	var periodic []*river.PeriodicJob
	if deps.Scheduler != nil {
		periodic = deps.Scheduler.AddWorkers(workers, queues)
	}
	if len(queues) == 0 {
		_ = dir.release()
		return nil, errors.New("jobs: worker has nothing to run (no rule sets or builder, or zero concurrency)")
	}
	rc, err := river.NewClient(riverpgxv5.New(deps.Pool), riverConfig(deps, queues, workers, periodic))
	if err != nil {
		_ = dir.release()
		return nil, fmt.Errorf("jobs: new worker: %w", err)
	}
	if deps.Scheduler != nil {
		deps.Scheduler.Attach(&Client{river: rc})
	}
	for _, a := range deps.Addons {
		a.Attach(rc)
	}
	member := fleet.NewMember(fleet.Config{
		Pool: deps.Pool, Logger: deps.Logger, WorkerID: deps.WorkerID, Started: time.Now(), Sandbox: deps.Sandbox,
		Every: deps.HeartbeatEvery, DeadAfter: deps.DeadAfter,
	})
	return &Worker{river: rc, deps: deps, dir: dir, fleet: member, live: live}, nil
}

// fetchPollInterval is how often a worker looks for jobs it was not told of.
const fetchPollInterval = 5 * time.Second

// insertNotifyEvery is how often, at most, one River client tells the
// workers of new jobs in a queue. River's default (its fetch cooldown,
// 100 ms) tells them only of the first of a run of transactions, as a
// ladder tick makes one per pair: the idle workers fetch then, most find
// nothing yet, and the rest of the tick's matches wait up to a poll
// (fetchPollInterval) while those workers idle. A worker's own fetches
// stay limited by queueFetchCooldown, so being told of every insert costs
// a busy worker nothing.
const insertNotifyEvery = time.Millisecond

// queueFetchCooldown is the least time between two fetches of one queue
// by one worker: River's default, which the client-wide setting
// (insertNotifyEvery) would otherwise lower.
const queueFetchCooldown = river.FetchCooldownDefault

// withDefaults is deps with the defaults of the settings left unset.
func (deps Deps) withDefaults() Deps {
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.Timeouts == (Timeouts{}) {
		deps.Timeouts = DefaultTimeouts()
	}
	if deps.WorkDir == "" {
		deps.WorkDir = os.TempDir()
	}
	deps.TurnLimits = sandbox.WithDefaults(deps.TurnLimits, sandbox.TurnDefaults())
	if deps.WorkerID == "" {
		deps.WorkerID = fleet.NewWorkerID()
	}
	if deps.LiveEvery <= 0 {
		deps.LiveEvery = DefaultLiveEvery
	}
	if deps.HeartbeatEvery <= 0 {
		deps.HeartbeatEvery = fleet.DefaultHeartbeatEvery
	}
	if deps.DeadAfter <= 0 {
		deps.DeadAfter = fleet.DefaultDeadAfter
	}
	return deps
}

// riverConfig is the worker's River configuration over queues, workers
// and periodic jobs; tests of how River hands out jobs use it too.
func riverConfig(deps Deps, queues map[string]river.QueueConfig, workers *river.Workers, periodic []*river.PeriodicJob) *river.Config {
	withCooldown := make(map[string]river.QueueConfig, len(queues))
	for name, q := range queues {
		if q.FetchCooldown == 0 {
			q.FetchCooldown = queueFetchCooldown
		}
		withCooldown[name] = q
	}
	return &river.Config{
		ID:                   deps.WorkerID,
		Queues:               withCooldown,
		Workers:              workers,
		Logger:               riverLogger(deps.Logger),
		JobTimeout:           max(deps.Timeouts.Build, deps.Timeouts.Match),
		RescueStuckJobsAfter: deps.Timeouts.rescueAfter(),
		SoftStopTimeout:      deps.ShutdownGrace,
		PeriodicJobs:         periodic,
		// River hears of new jobs at once through LISTEN/NOTIFY; its poll
		// is only the fallback, and at its default (a second, for each
		// queue) an idle worker's polls were most of the statements a
		// fleet sends per round.
		FetchPollInterval: fetchPollInterval,
		FetchCooldown:     insertNotifyEvery,
		// Retries of a match start soon: most failures are a lost worker.
		RetryPolicy: &retryPolicy{},
	}
}

// ID is the worker's id in heartbeats and in River's attempted_by.
func (w *Worker) ID() string { return w.deps.WorkerID }

// Start begins fetching and running jobs until ctx ends or Stop is called.
// When ctx ends the worker stops gracefully (see Deps.ShutdownGrace).
func (w *Worker) Start(ctx context.Context) error {
	// The first heartbeat comes before any job is taken, so a job never
	// belongs to a worker the rescuer has not heard of.
	if err := w.fleet.Join(ctx); err != nil {
		return fmt.Errorf("jobs: start worker: %w", err)
	}
	if w.deps.Scheduler != nil {
		if err := w.deps.Scheduler.RegisterRuns(ctx); err != nil {
			return fmt.Errorf("jobs: start worker: %w", err)
		}
	}
	if err := w.river.Start(ctx); err != nil {
		return fmt.Errorf("jobs: start worker: %w", err)
	}
	go w.fleet.Run(ctx, w.river.Stopped())
	if w.live != nil && w.deps.MatchConcurrency > 0 {
		lctx, stop := context.WithCancel(ctx)
		go func() {
			<-w.river.Stopped()
			stop()
		}()
		go w.live.run(lctx, store.New(w.deps.Pool), w.deps.Logger)
	}
	go func() {
		<-w.river.Stopped()
		if err := w.dir.release(); err != nil {
			w.deps.Logger.Warn("remove work folder", "err", err)
		}
	}()
	return nil
}

// Stop stops fetching and waits for running jobs; after ShutdownGrace
// their contexts are canceled and they return to the queue.
func (w *Worker) Stop(ctx context.Context) error {
	return w.river.Stop(ctx)
}

// Subscribe returns a channel of the worker's job events of the given
// kinds and a function that stops them: how a process that runs a worker
// (a test, a monitor) learns that a job ended without polling.
func (w *Worker) Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func()) {
	return w.river.Subscribe(kinds...)
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
