// Package jobs holds the platform's background work on River: building a
// bot version and playing a match, and the worker process that runs them
// (its River client, work folders and job metrics). Jobs are inserted in
// the transaction that records what they work on (EnqueueBuildTx,
// EnqueueMatchTx), and a job's outcome lands in one transaction with its
// completion, so a retried or duplicated job never records anything twice.
//
// The competition's periodic ticks live in internal/schedule, which the
// worker runs through Deps.Scheduler; heartbeats and the rescue of dead
// workers' jobs live in internal/fleet.
package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/broadside/broadside/internal/store"
)

// Queue names: builds and matches have their own so a burst of uploads
// never starves the ladder, and the other way round.
const (
	QueueBuild = "build"
	QueueMatch = "match"
)

// matchPriority orders the match queue (River runs 1 before 4): a challenge
// that a person waits for, then a battle's games, then a duel's (its owner
// waits for a verdict, but over many games), then the matchmaker's.
func matchPriority(kind string) int {
	switch kind {
	case "challenge":
		return 1
	case "battle":
		return 2
	case "duel":
		return 3
	default:
		return 4
	}
}

// buildPriority orders the build queue (River runs 1 before 4) fairly
// between users: a user's first build waiting or running gets 1, the
// second 2, any later one 3, so another user's first build starts before
// the second of someone who queued several, whatever their order. House
// bots' builds (the starters the portal seeds) come after every
// contestant's.
func buildPriority(house bool, ahead int) int {
	if house {
		return 4
	}
	return min(ahead+1, 3)
}

// BuildArgs asks for one bot version to be built.
type BuildArgs struct {
	VersionID int64 `json:"version_id"`
}

// Kind is the stable job kind stored in river_job.
func (BuildArgs) Kind() string { return "build" }

// InsertOpts puts builds on their queue; one pending build per version.
func (BuildArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueBuild, MaxAttempts: 3, UniqueOpts: WhileUnfinished()}
}

// MatchArgs asks for one match to be played.
type MatchArgs struct {
	MatchID int64 `json:"match_id"`
}

// Kind is the stable job kind stored in river_job.
func (MatchArgs) Kind() string { return "match" }

// InsertOpts puts matches on their queue; one pending job per match.
func (MatchArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMatch, MaxAttempts: 5, UniqueOpts: WhileUnfinished()}
}

// WhileUnfinished makes a job unique among the jobs of its kind and args
// that have not finished. River's default also counts completed jobs, so a
// periodic tick or a rerun would be skipped as a duplicate of its own
// finished predecessor until River prunes it a day later.
func WhileUnfinished() river.UniqueOpts {
	return river.UniqueOpts{
		ByArgs: true,
		ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
			rivertype.JobStateRunning, rivertype.JobStateScheduled,
		},
	}
}

// Client inserts jobs. The portal holds one; it runs no jobs.
type Client struct {
	river *river.Client[pgx.Tx]
}

// NewClient returns an insert-only client on pool. It tells the workers of
// every insert transaction (see insertNotifyEvery).
func NewClient(pool *pgxpool.Pool) (*Client, error) {
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{FetchCooldown: insertNotifyEvery})
	if err != nil {
		return nil, fmt.Errorf("jobs: new client: %w", err)
	}
	return &Client{river: rc}, nil
}

// EnqueueBuildTx queues the build of a bot version inside tx, so the job
// exists exactly when the version does, with the priority of its place
// among its owner's builds (buildPriority). It reports whether a job was
// added: false means River skipped it as a duplicate, because an
// unfinished build job of the version already waits or runs.
func (c *Client) EnqueueBuildTx(ctx context.Context, tx pgx.Tx, versionID int64) (added bool, err error) {
	house, ahead, err := store.NewTx(tx).BuildQueuePlace(ctx, versionID)
	if err != nil {
		return false, fmt.Errorf("jobs: enqueue build of version %d: %w", versionID, err)
	}
	opts := &river.InsertOpts{Priority: buildPriority(house, ahead)}
	res, err := c.river.InsertTx(ctx, tx, BuildArgs{VersionID: versionID}, opts)
	if err != nil {
		return false, fmt.Errorf("jobs: enqueue build of version %d: %w", versionID, err)
	}
	return !res.UniqueSkippedAsDuplicate, nil
}

// EnqueueMatchTx queues a match inside tx, so the job exists exactly when
// the match does, with its kind's priority: a burst of ladder matches
// must not hold back a challenge. It reports whether a job was added:
// false means River skipped it as a duplicate, because an unfinished job
// of the match already waits or runs.
func (c *Client) EnqueueMatchTx(ctx context.Context, tx pgx.Tx, matchID int64) (added bool, err error) {
	kind, err := store.NewTx(tx).MatchKind(ctx, matchID)
	if err != nil {
		return false, fmt.Errorf("jobs: enqueue match %d: %w", matchID, err)
	}
	opts := &river.InsertOpts{Priority: matchPriority(kind)}
	res, err := c.river.InsertTx(ctx, tx, MatchArgs{MatchID: matchID}, opts)
	if err != nil {
		return false, fmt.Errorf("jobs: enqueue match %d: %w", matchID, err)
	}
	return !res.UniqueSkippedAsDuplicate, nil
}

// Timeouts of the job kinds. A job running longer is canceled and retried;
// River rescues a job left running by a dead worker after RescueAfter.
type Timeouts struct {
	Build time.Duration
	Match time.Duration
	// RescueAfter must exceed both; zero means the longer one plus a minute.
	RescueAfter time.Duration
}

// DefaultTimeouts suit the longest Entelect match (a 14x14 map with slow
// bots) and real builds: the slowest starter kit, the Go reference bot
// (go build compiles the standard library into a fresh cache), took up to
// 2 minutes 20 in the sandbox of a two-core machine at a load average of
// 30 (docs/operations.md); five minutes leaves twice that, and a build
// that will not end holds a build slot for five minutes at most.
func DefaultTimeouts() Timeouts {
	return Timeouts{Build: 5 * time.Minute, Match: 30 * time.Minute}
}

func (t Timeouts) rescueAfter() time.Duration {
	if t.RescueAfter > 0 {
		return t.RescueAfter
	}
	return max(t.Build, t.Match) + time.Minute
}

// River returns the underlying River client, for operations beyond
// enqueueing (admin tools, tests).
func (c *Client) River() *river.Client[pgx.Tx] { return c.river }
