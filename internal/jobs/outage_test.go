package jobs_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/testdb"
	"github.com/broadside/broadside/internal/testenv"
)

// TestOutageRescuesNothingAlive runs two real worker processes whose only
// way to the database is a proxy, and cuts it for well over
// WORKER_DEAD_AFTER while each plays a match. Once it is back, neither
// worker may take the other for dead: every match is played once (one
// attempt, no job rescued), recorded and rated once, and none is lost.
func TestOutageRescuesNothingAlive(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes for about two minutes")
	}
	bin, dbURL, pool := workerProcessSetup(t)
	blobDir := t.TempDir()
	e := newEnv(t, pool, blobDir)
	proxy := testdb.StartProxy(t, dbURL)

	// Heartbeats every second, dead after four: the outage below lasts
	// longer. No ladder: the test counts its own matches.
	const deadAfter = 4 * time.Second
	env := []string{"WORKER_DEAD_AFTER=" + deadAfter.String(), "LADDER_INTERVAL=off"}
	var outs []*testenv.Buffer
	var workDirs []string
	for range 2 {
		dir := t.TempDir()
		_, out := startWorkerProcess(t, bin, proxy.URL(), blobDir, dir, env...)
		outs, workDirs = append(outs, out), append(workDirs, dir)
	}

	a := e.upload(t, "PyA", zipDir(t, "../../bots/entelect-python3", nil))
	b := e.upload(t, "PyB", zipDir(t, "../../bots/entelect-python3", nil))
	for _, v := range []int64{a, b} {
		if got := e.waitBuilt(t, v, 3*time.Minute); got.BuildStatus != "ok" {
			t.Fatalf("build: %s\n%s", got.BuildStatus, got.BuildLog)
		}
	}
	va, _ := e.st.BotVersionGetByID(e.ctx, a)
	vb, _ := e.st.BotVersionGetByID(e.ctx, b)
	var matches []int64
	for i := range 4 {
		// The larger map: a match lasts longer than on the small one.
		matches = append(matches, e.createGameMatch(t, "entelect", 2, int64(300+i), va.BotID, vb.BotID))
	}
	t.Cleanup(func() {
		if t.Failed() {
			dumpRows(t, e, `SELECT id, kind, state, attempt, attempted_by::text, errors::text FROM river_job ORDER BY id`)
			dumpRows(t, e, `SELECT id, status, attempt, error FROM matches ORDER BY id`)
		}
	})

	// Both workers in the middle of a match: its folder is there and a
	// round of it announced.
	events := listenMatchEvents(t, e)
	playing := map[string]int64{}
	e.waitFor(t, 5*time.Minute, "both workers playing a match", func() bool {
		for _, dir := range workDirs {
			ids, _ := filepath.Glob(filepath.Join(dir, "worker-*", "match-*"))
			for _, d := range ids {
				var id int64
				if _, err := fmt.Sscanf(filepath.Base(d), "match-%d-", &id); err == nil &&
					e.count(t, `SELECT count(*) FROM matches WHERE id = $1 AND status = 'running'`, id) == 1 {
					playing[dir] = id
				}
			}
		}
		return len(playing) == 2
	})
	for _, id := range playing {
		events.waitRound(t, id, 1, 2*time.Minute)
	}

	proxy.Cut()
	cutAt := time.Now()
	// The outage lasts until each worker has seen a dozen heartbeats
	// fail, a second or more apart: every heartbeat in the database is
	// then older than WORKER_DEAD_AFTER when the first worker gets back.
	e.waitFor(t, 5*time.Minute, "both workers to miss a dozen heartbeats", func() bool {
		return strings.Count(outs[0].String(), "heartbeat failed") >= 12 && strings.Count(outs[1].String(), "heartbeat failed") >= 12
	})
	outage := time.Since(cutAt)
	if outage < 2*deadAfter {
		t.Fatalf("the outage lasted %s, not past WORKER_DEAD_AFTER twice", outage)
	}
	proxy.Restore()

	for _, id := range matches {
		if m := e.waitMatch(t, id, 10*time.Minute); m.Status != "finished" {
			t.Fatalf("match %d: %s %s", id, m.Status, m.Error)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'match' AND errors::text LIKE '%stopped sending heartbeats%'`); n != 0 {
		t.Errorf("%d match jobs rescued from a worker that was alive", n)
	}
	// Every match job completed on its first attempt, but one a worker
	// took just before the cut: the outage cut its start, before any round
	// was played, and the same worker started it again. The rating events
	// below say each match was recorded once.
	if n := e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'match' AND (state <> 'completed' OR (attempt <> 1 AND (
		(SELECT count(DISTINCT w) FROM unnest(attempted_by) w) <> 1 OR
		EXISTS (SELECT 1 FROM jsonb_array_elements(to_jsonb(errors)) err WHERE err->>'error' NOT LIKE 'store: start match %'))))`); n != 0 {
		t.Errorf("%d match jobs not completed on their first attempt, nor started again after a start the outage cut", n)
	}

	if n := e.count(t, `SELECT count(*) FROM rating_events WHERE match_id = ANY($1)`, matches); n != 2*len(matches) {
		t.Errorf("%d rating events, want 2 for each of the %d matches", n, len(matches))
	}
	if n := e.count(t, `SELECT coalesce(sum(games), 0)::int FROM ratings`); n != 2*len(matches) {
		t.Errorf("ratings count %d games, want %d", n, 2*len(matches))
	}
	t.Logf("outage of %s; every match finished %s after the cut", outage.Round(time.Second), time.Since(cutAt).Round(time.Second))
}
