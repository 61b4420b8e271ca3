package schedule

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/rating"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// TestRatingCheckRaisesAlarm runs a worker whose scheduler checks the
// ratings every second, over real time through its River client: a rating
// changed behind the history's back raises the alarm /admin shows, and once
// the table is repaired the next check clears it.
func TestRatingCheckRaisesAlarm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.NewPool(t)
	st := store.New(pool)
	bucket, err := blob.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bucket.Close() })

	// One rated match, recorded and rated as the worker does.
	a, b := builtBot(t, st, "alice"), builtBot(t, st, "bob")
	err = st.InTx(ctx, func(_ pgx.Tx, st *store.Store) error {
		m, err := st.MatchCreate(ctx, store.MatchCreateParams{Game: "entelect", Seed: 1, Kind: "ladder", Ranked: true,
			Players: []store.MatchPlayerParams{{BotID: a, BotVersionID: version(t, st, a)}, {BotID: b, BotVersionID: version(t, st, b)}}})
		if err != nil {
			return err
		}
		if err := st.MatchFinish(ctx, store.MatchFinishParams{ID: m.ID, Players: []store.MatchPlayerResult{
			{Seat: 0, Outcome: "win", Rank: 1}, {Seat: 1, Outcome: "loss", Rank: 2}}}); err != nil {
			return err
		}
		return competition.RatePeriod(ctx, st, m.ID, "entelect", rating.Glicko2, []store.RatedGame{{MatchID: m.ID,
			Players: []store.RatedPlayer{{BotID: a, Rank: 1, Outcome: "win"}, {BotID: b, Rank: 2, Outcome: "loss"}}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	// Changed by hand, not by a match.
	if _, err := pool.Exec(ctx, `UPDATE ratings SET rating = rating + 40 WHERE bot_id = $1`, b); err != nil {
		t.Fatal(err)
	}

	sched, err := New(Config{Pool: pool, BattleEvery: time.Hour, RatingCheckEvery: time.Second, Rules: rulesets.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := jobs.NewWorker(jobs.Deps{Pool: pool, Bucket: bucket, Games: rulesets.Registry(), Scheduler: sched, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	events, cancel := w.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	defer cancel()
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = w.Stop(stopCtx)
	})

	// nextCheck waits for the scheduler's next check to end.
	nextCheck := func(what string) *store.RatingCheck {
		t.Helper()
		deadline := time.After(2 * time.Minute)
		for {
			select {
			case ev := <-events:
				if ev.Job.Kind != periodicRatingCheck {
					continue
				}
				if ev.Kind == river.EventKindJobFailed {
					t.Fatalf("rating check failed: %v", ev.Job.Errors)
				}
				c, err := st.RatingCheckLatest(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return c
			case <-deadline:
				t.Fatalf("no rating check ran (%s)", what)
			}
		}
	}
	c := nextCheck("with the tampered rating")
	if !c.Alarm() || c.Differences != 1 || c.Matches != 1 || !strings.Contains(c.Detail, "stored") {
		t.Fatalf("check %+v, want an alarm for one bot", c)
	}
	if _, err := competition.RecomputeRatings(ctx, st, true); err != nil {
		t.Fatal(err)
	}
	// A check may have started before the repair: wait for one that
	// started after it.
	repaired := time.Now()
	for {
		c = nextCheck("after the repair")
		if c.CheckedAt.After(repaired) {
			break
		}
	}
	if c.Alarm() || c.Differences != 0 {
		t.Fatalf("check after the repair %+v, want no alarm", c)
	}
	runs, err := st.PeriodicList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range runs {
		found = found || (r.Name == periodicRatingCheck && r.Runs >= 2)
	}
	if !found {
		t.Fatalf("the check's runs are not recorded for /admin: %+v", runs)
	}
}

// version is a bot's current version.
func version(t *testing.T, st *store.Store, botID int64) int64 {
	t.Helper()
	bot, err := st.BotGetByID(context.Background(), botID)
	if err != nil || bot.CurrentVersionID == nil {
		t.Fatalf("bot %d: %v", botID, err)
	}
	return *bot.CurrentVersionID
}
