package jobs_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// matchEvents follows the match_events channel, on which every process
// announces a match's status changes and played rounds: how a test waits
// on a worker in another process without polling.
type matchEvents struct {
	raw *pgx.Conn
	st  *store.Store
}

// listenMatchEvents starts listening. Call it before what is to be waited
// for can happen, so no announcement is missed.
func listenMatchEvents(t *testing.T, e *env) *matchEvents {
	t.Helper()
	conn, err := e.pool.Acquire(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A connection that has listened is not given back to the pool.
	raw := conn.Hijack()
	t.Cleanup(func() { raw.Close(context.Background()) })
	if _, err := raw.Exec(e.ctx, "LISTEN match_events"); err != nil {
		t.Fatal(err)
	}
	return &matchEvents{raw: raw, st: e.st}
}

// follow says match is followed live, as a portal's live hub does for a
// page that watches it, every second until ctx ends: workers publish a
// match's rounds only while somebody follows it.
func (m *matchEvents) follow(ctx context.Context, match int64) {
	follow(ctx, m.st, match)
}

// follow is matchEvents.follow on st.
func follow(ctx context.Context, st *store.Store, match int64) {
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			_ = st.MatchWatchAnnounce(ctx, []int64{match})
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// next returns the next event of match, waiting until ctx ends.
func (m *matchEvents) next(t *testing.T, ctx context.Context, match int64) store.MatchEvent {
	t.Helper()
	for {
		n, err := m.raw.WaitForNotification(ctx)
		if err != nil {
			t.Fatalf("waiting for an event of match %d: %v", match, err)
		}
		var ev store.MatchEvent
		if json.Unmarshal([]byte(n.Payload), &ev) == nil && ev.Match == match {
			return ev
		}
	}
}

// waitRound waits until match has announced round seq or a later one,
// for at most within. The match ending first fails the test.
func (m *matchEvents) waitRound(t *testing.T, match int64, seq int, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	m.follow(ctx, match)
	for {
		ev := m.next(t, ctx, match)
		if ev.Round != nil && *ev.Round >= seq {
			return
		}
		if ev.Status == store.MatchFinished || ev.Status == store.MatchFailed {
			t.Fatalf("match %d %s before round %d", match, ev.Status, seq)
		}
	}
}

// setup gives a test its platform from one place, in the shape of River's
// own tests (a bundle from setup(t)): a fresh migrated database with its
// pool and store, a bucket, a River client and an owner for bots. Tests
// add a worker with startWorker or runWorker.
func setup(t *testing.T) *env {
	t.Helper()
	return newEnv(t, testdb.NewPool(t), t.TempDir())
}
