package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/broadside/broadside/internal/testdb"
)

// TestQueuedMatchesReachIdleWorkers queues matches one transaction each, a
// few milliseconds apart, as a ladder tick records its pairs and as
// contestants' challenges arrive, while as many workers wait idle. Every
// match must start on what the workers are told at its insert: their poll
// is set to an hour here, so a match they were not told of waits past the
// test's limit. With River's default notice (at most one a tenth of a
// second per client) the workers heard only of the first match, and on a
// 16-core fleet most of them idled until their poll.
func TestQueuedMatchesReachIdleWorkers(t *testing.T) {
	const idle = 4
	for _, tc := range []struct {
		name string
		// inserter is the client the matches are queued through, given
		// the workers' River clients.
		inserter func(t *testing.T, pool *pgxpool.Pool, workers []*river.Client[pgx.Tx]) *Client
	}{
		{"the portal's client", func(t *testing.T, pool *pgxpool.Pool, _ []*river.Client[pgx.Tx]) *Client {
			c, err := NewClient(pool)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}},
		{"a worker's own client, as the ladder's ticks use", func(_ *testing.T, _ *pgxpool.Pool, workers []*river.Client[pgx.Tx]) *Client {
			return &Client{river: workers[0]}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			pool := testdb.NewPool(t)
			started := make(chan int64, 2*idle)
			// The first matches (up to lastWarmUp) only show every worker
			// started and fetching; once they end, the workers are idle.
			var lastWarmUp atomic.Int64
			warmedUp, release := make(chan struct{}), make(chan struct{})
			defer close(release)
			var clients []*river.Client[pgx.Tx]
			for i := range idle {
				workers := river.NewWorkers()
				// A match holds its worker's one slot, so each match
				// started is on a worker of its own.
				river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, j *river.Job[MatchArgs]) error {
					started <- j.Args.MatchID
					hold := release
					if j.Args.MatchID <= lastWarmUp.Load() {
						hold = warmedUp
					}
					select {
					case <-hold:
					case <-ctx.Done():
					}
					return nil
				}))
				deps := Deps{Logger: slog.New(slog.DiscardHandler), WorkerID: fmt.Sprintf("idle-%d", i), Timeouts: DefaultTimeouts()}
				cfg := riverConfig(deps, map[string]river.QueueConfig{QueueMatch: {MaxWorkers: 1}}, workers, nil)
				cfg.FetchPollInterval = time.Hour
				rc, err := river.NewClient(riverpgxv5.New(pool), cfg)
				if err != nil {
					t.Fatal(err)
				}
				if err := rc.Start(ctx); err != nil {
					t.Fatal(err)
				}
				defer func() {
					stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
					defer cancel()
					_ = rc.StopAndCancel(stopCtx)
				}()
				clients = append(clients, rc)
			}
			queue := tc.inserter(t, pool, clients)
			// queueMatch records a match and queues it inside tx.
			queueMatch := func(tx pgx.Tx, seed int) (int64, error) {
				var id int64
				if err := tx.QueryRow(ctx, `INSERT INTO matches (seed, kind, ranked, status) VALUES ($1, 'ladder', true, 'queued') RETURNING id`,
					seed).Scan(&id); err != nil {
					return 0, err
				}
				_, err := queue.EnqueueMatchTx(ctx, tx, id)
				return id, err
			}
			// The limits only bound a failure: a match not told of waits
			// for the hour's poll.
			waitStarted := func(want map[int64]bool, what string) {
				t.Helper()
				deadline := time.After(time.Minute)
				for len(want) > 0 {
					select {
					case id := <-started:
						delete(want, id)
					case <-deadline:
						t.Fatalf("%d of %d %s never started on the %d idle workers: they were not told of them", len(want), idle, what, idle)
					}
				}
			}

			// Warm-up: one match in a single transaction for each worker,
			// found by their first fetches or the one notice.
			var warm map[int64]bool
			err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				warm = map[int64]bool{}
				for i := range idle {
					id, err := queueMatch(tx, -i)
					if err != nil {
						return err
					}
					warm[id] = true
					lastWarmUp.Store(id)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			waitStarted(warm, "warm-up matches")
			var completed []<-chan *river.Event
			for _, rc := range clients {
				events, stop := rc.Subscribe(river.EventKindJobCompleted)
				defer stop()
				completed = append(completed, events)
			}
			close(warmedUp)
			for i, events := range completed {
				select {
				case <-events:
				case <-time.After(time.Minute):
					t.Fatalf("worker %d never completed its warm-up match", i)
				}
			}
			// Each worker fetches once more as its slot frees and finds
			// nothing; let that fetch and its cooldown pass, so the
			// matches below come to workers that only wait to be told.
			time.Sleep(300 * time.Millisecond)

			want := map[int64]bool{}
			for i := range idle {
				err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
					id, err := queueMatch(tx, i)
					want[id] = true
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				// The next transaction comes a little later, as the next
				// pair of a tick does; only the gap's floor matters.
				time.Sleep(5 * time.Millisecond)
			}
			waitStarted(want, "matches queued one transaction each")
		})
	}
}
