package jobs

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/broadside/broadside/internal/testdb"
)

// TestLadderBurstStarvesNeither queues 200 ladder matches before one
// challenge and one build, and lets River's own fetching hand them to a
// worker with one slot per queue, as a busy worker has: the challenge is
// the first match it gets, and the build is worked while the whole ladder
// burst still waits.
func TestLadderBurstStarvesNeither(t *testing.T) {
	ctx := context.Background()
	pool := testdb.NewPool(t)
	client, err := NewClient(pool)
	if err != nil {
		t.Fatal(err)
	}
	const burst = 200
	var challenge, build int64
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for i := range burst + 1 {
			kind := "ladder"
			if i == burst {
				kind = "challenge"
			}
			var id int64
			if err := tx.QueryRow(ctx, `INSERT INTO matches (seed, kind, ranked, status) VALUES ($1, $2, $3, 'queued') RETURNING id`,
				i, kind, kind == "ladder").Scan(&id); err != nil {
				return err
			}
			if _, err := client.EnqueueMatchTx(ctx, tx, id); err != nil {
				return err
			}
			challenge = id
		}
		var version int64
		err := tx.QueryRow(ctx, `
			WITH u AS (INSERT INTO users (username, password_hash) VALUES ('uploader', 'x') RETURNING id),
			     b AS (INSERT INTO bots (owner_id, name) SELECT id, 'bot' FROM u RETURNING id)
			INSERT INTO bot_versions (bot_id, number, manifest, bot_type, source_key, source_sha256, source_size)
			SELECT id, 1, '{}', 'Python3', 'k', 's', 1 FROM b RETURNING id`).Scan(&version)
		if err != nil {
			return err
		}
		build = version
		_, err = client.EnqueueBuildTx(ctx, tx, version)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	matches, builds := make(chan int64, burst+1), make(chan int64, 1)
	release := make(chan struct{})
	workers := river.NewWorkers()
	// The match slot stays taken by the first match it gets, so the order
	// of the rest cannot hide which came first.
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, j *river.Job[MatchArgs]) error {
		matches <- j.Args.MatchID
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}))
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, j *river.Job[BuildArgs]) error {
		builds <- j.Args.VersionID
		return nil
	}))
	// The worker's own River configuration, with one slot per queue.
	deps := Deps{Logger: slog.New(slog.DiscardHandler), WorkerID: "priority-test", Timeouts: DefaultTimeouts()}
	queues := map[string]river.QueueConfig{QueueMatch: {MaxWorkers: 1}, QueueBuild: {MaxWorkers: 1}}
	rc, err := river.NewClient(riverpgxv5.New(pool), riverConfig(deps, queues, workers, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		close(release)
		stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_ = rc.Stop(stopCtx)
	}()
	// The timeouts only bound a failure; nothing else competes for the jobs.
	select {
	case id := <-matches:
		if id != challenge {
			t.Errorf("first match worked: %d, want the challenge %d queued after %d ladder matches", id, challenge, burst)
		}
	case <-time.After(time.Minute):
		t.Fatal("no match was worked")
	}
	select {
	case v := <-builds:
		if v != build {
			t.Errorf("build of version %d, want %d", v, build)
		}
	case <-time.After(time.Minute):
		t.Fatal("the build was not worked while the ladder burst waited")
	}
	var waiting int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE queue = $1 AND state = 'available'`, QueueMatch).Scan(&waiting); err != nil {
		t.Fatal(err)
	}
	if waiting != burst {
		t.Errorf("%d ladder matches still waiting when the build was done, want all %d", waiting, burst)
	}
}

// TestMatchPriorityOrder: a challenge goes first, then a battle's games,
// then a duel's, then the ladder's; River runs priority 1 first and knows
// no priority past 4.
func TestMatchPriorityOrder(t *testing.T) {
	order := []string{"challenge", "battle", "duel", "ladder"}
	for i := 1; i < len(order); i++ {
		if a, b := matchPriority(order[i-1]), matchPriority(order[i]); a >= b {
			t.Errorf("%s has priority %d, %s %d: want %s first", order[i-1], a, order[i], b, order[i-1])
		}
	}
	for _, kind := range append(order, "placement") {
		if p := matchPriority(kind); p < 1 || p > 4 {
			t.Errorf("%s has priority %d, outside River's 1 to 4", kind, p)
		}
	}
	if matchPriority("placement") != matchPriority("ladder") {
		t.Error("a placement match is the ladder's and queues with it")
	}
}
