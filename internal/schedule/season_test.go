package schedule

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/fleet"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// TestSeasonRunsByItself runs two workers with their schedulers, as
// production does, on sub-second intervals, and calls nothing else: the
// ticks must recur, only one of each kind may wait or run at a time
// however many workers there are, a due battle must start, and two
// contestants' new bots must get a placement match.
func TestSeasonRunsByItself(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.NewPool(t)
	st := store.New(pool)
	bucket, err := blob.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bucket.Close() })

	// Three contestants with a built bot each; two are due a battle that
	// starts in a second, and all three want placement games.
	bots := make([]int64, 3)
	for i := range bots {
		bots[i] = builtBot(t, st, fmt.Sprintf("contestant%d", i))
	}
	org, err := st.UserEnsure(ctx, "organiser")
	if err != nil {
		t.Fatal(err)
	}
	battle, err := st.BattleCreate(ctx, store.BattleCreateParams{
		Name: "evening", OrganiserID: org.ID, Format: "round_robin", Game: "entelect", MapSize: 1, GamesPerPairing: 1,
		StartAt: time.Now().Add(time.Second), EntryDeadline: time.Now().Add(500 * time.Millisecond), Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bots[:2] {
		bot, err := st.BotGetByID(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.BattleEnter(ctx, battle, b, bot.OwnerID); err != nil {
			t.Fatal(err)
		}
	}

	// The previous leader died while running a ladder tick: the tick is
	// left running, and as ticks are unique while unfinished it blocks
	// every later one until the dead worker's jobs are rescued.
	ins, err := jobs.NewClient(pool)
	if err != nil {
		t.Fatal(err)
	}
	stale, err := ins.River().Insert(ctx, LadderTickArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WorkerBeat(ctx, store.WorkerHeartbeat{WorkerID: "dead-leader", StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(ctx, `UPDATE worker_heartbeats SET last_seen_at = now() - interval '1 hour' WHERE worker_id = 'dead-leader'`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now(),
		attempted_by = ARRAY['dead-leader'] WHERE id = $1`, stale.Job.ID); err != nil {
		t.Fatal(err)
	}

	const every = 300 * time.Millisecond
	const wantTicks = 4
	var first *jobs.Worker
	for i := 0; i < 2; i++ {
		sched, err := New(Config{
			Pool: pool, BattleEvery: every, LadderEvery: every, RatingCheckEvery: every,
			LadderGames: []string{"entelect"}, LadderSlots: 1, Rules: rulesets.Registry(),
		})
		if err != nil {
			t.Fatal(err)
		}
		// Rule sets but no match slots and no builder, as a worker started
		// with WORKER_CONCURRENCY=0: it runs the periodic jobs only, so the
		// matches they create stay queued for counting.
		w, err := jobs.NewWorker(jobs.Deps{Pool: pool, Bucket: bucket, Games: rulesets.Registry(), Scheduler: sched,
			WorkDir: t.TempDir(), HeartbeatEvery: every, DeadAfter: 3 * every})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = w
		}
		if err := w.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = w.Stop(stopCtx)
		})
	}
	started := time.Now()

	// Wait on River's own events, from one of the two workers' clients:
	// each worker sees only the jobs it ran, so count from the database
	// once either worker has seen enough ticks go by.
	events, cancel := first.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	defer cancel()
	deadline := time.After(60 * time.Second)
	for done := false; !done; {
		select {
		case ev := <-events:
			if ev.Kind == river.EventKindJobFailed {
				t.Fatalf("tick %s failed: %v", ev.Job.Kind, ev.Job.Errors)
			}
			done = true
			for _, kind := range []string{"battle_tick", "ladder_tick"} {
				if countJobs(t, st, kind, "completed") < wantTicks {
					done = false
				}
			}
			// Every periodic job, not only the ticks: the checks below
			// look at all four.
			if runs, err := st.PeriodicList(ctx); done && (err != nil || len(runs) < 4) {
				done = false
			} else {
				for _, r := range runs {
					done = done && r.Runs >= wantTicks
				}
			}
		case <-deadline:
			t.Fatalf("ticks did not recur: %v", tickCounts(t, st))
		}
	}
	elapsed := time.Since(started)

	for _, kind := range []string{"battle_tick", "ladder_tick"} {
		// Two workers, yet no more ticks than one leader inserts.
		if n, most := countJobs(t, st, kind, "completed"), int(elapsed/every)+3; n > most {
			t.Errorf("%d %s jobs completed in %s, more than one leader inserts (%d)", n, kind, elapsed, most)
		}
		if n := countRows(t, st, `SELECT count(*) FROM river_job WHERE kind = $1 AND finalized_at IS NULL`, kind); n > 1 {
			t.Errorf("%d %s jobs unfinished at once", n, kind)
		}
	}
	var staleState string
	if err := st.DB().QueryRow(ctx, `SELECT state FROM river_job WHERE id = $1`, stale.Job.ID).Scan(&staleState); err != nil {
		t.Fatal(err)
	}
	if staleState != "completed" {
		t.Errorf("the dead leader's tick is %s, want rescued and completed", staleState)
	}
	runs, err := st.PeriodicList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4 {
		t.Fatalf("periodic jobs recorded: %+v", runs)
	}
	for _, r := range runs {
		if r.Runs < wantTicks || r.LastFinishedAt == nil || r.LastError != "" || r.Interval != every {
			t.Errorf("periodic job %s: %d runs, last finished %v, error %q, interval %s",
				r.Name, r.Runs, r.LastFinishedAt, r.LastError, r.Interval)
		}
		if r.Overdue(time.Now()) {
			t.Errorf("periodic job %s shows as overdue while running", r.Name)
		}
	}

	// /metrics says the same, and raises the alarm once the ticks stop
	// for three intervals (seen here through a later clock).
	c := fleet.NewPeriodicCollector(st)
	if got := periodicGauges(t, c, "broadside_periodic_overdue"); len(got) != 4 || got["ladder_tick"] != 0 || got["battle_tick"] != 0 {
		t.Errorf("overdue while running: %v", got)
	}
	if got := periodicGauges(t, c, "broadside_periodic_runs_total"); got["ladder_tick"] < wantTicks {
		t.Errorf("runs in /metrics: %v", got)
	}
	c.Now = func() time.Time { return time.Now().Add(10 * every) }
	if got := periodicGauges(t, c, "broadside_periodic_overdue"); got["ladder_tick"] != 1 || got["rescue"] != 1 {
		t.Errorf("stopped ticks not overdue in /metrics: %v", got)
	}

	b, err := st.BattleGetByID(ctx, battle)
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != "running" {
		t.Errorf("the due battle is %s, want running: nobody but the scheduler could start it", b.Status)
	}
	if n := countRows(t, st, `SELECT count(*) FROM battle_games WHERE battle_id = $1`, battle); n != 1 {
		t.Errorf("%d battle games for two entrants, want 1", n)
	}
	if n := countRows(t, st, `SELECT count(*) FROM matches WHERE kind = 'placement' AND ranked`); n != 2 {
		t.Errorf("%d placement matches queued, want the one ladder slot filled by a pair", n)
	}
}

// builtBot records a contestant's entelect bot with a built version.
func builtBot(t *testing.T, st *store.Store, owner string) int64 {
	t.Helper()
	ctx := context.Background()
	u, err := st.UserEnsure(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	res, err := st.UploadRecord(ctx, store.UploadParams{
		OwnerID: u.ID, Name: owner + "-bot", Game: "entelect", Language: "Go", BotType: "Golang",
		Manifest: []byte(`{}`), SourceSHA256: "00", SourceSize: 1,
		SourceKey: blob.SourceKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.BotVersionFinishBuild(ctx, res.VersionID, store.BuildResult{OK: true, ArtifactKey: "a"}); err != nil {
		t.Fatal(err)
	}
	return res.BotID
}

func countJobs(t *testing.T, st *store.Store, kind, state string) int {
	t.Helper()
	return countRows(t, st, `SELECT count(*) FROM river_job WHERE kind = $1 AND state = $2`, kind, state)
}

func tickCounts(t *testing.T, st *store.Store) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, kind := range []string{"battle_tick", "ladder_tick"} {
		out[kind] = countJobs(t, st, kind, "completed")
	}
	return out
}

// periodicGauges gathers one metric of the collector by job.
func periodicGauges(t *testing.T, c prometheus.Collector, name string) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			out[m.GetLabel()[0].GetValue()] = v
		}
	}
	return out
}
