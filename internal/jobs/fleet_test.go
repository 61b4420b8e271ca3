package jobs_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testblob"
	"github.com/broadside/broadside/internal/testenv"
)

// fleetWorker is one worker process of a fleet, with its own work folder.
type fleetWorker struct {
	cmd     *exec.Cmd
	workDir string
	out     *testenv.Buffer
}

// startFleetWorker runs the worker binary with nothing shared with the
// test or the other workers but the database and the S3 bucket.
func startFleetWorker(t *testing.T, bin, dbURL, bucketURL string) *fleetWorker {
	t.Helper()
	// The bots are untrusted code, as in production: never unconfined.
	testenv.RequireErr(t, "an enforced sandbox", sandbox.Require(sandbox.Probe(context.Background())))
	w := &fleetWorker{workDir: t.TempDir(), out: &testenv.Buffer{}}
	w.cmd = exec.Command(bin)
	w.cmd.Dir = t.TempDir()
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	w.cmd.Env = append(append(os.Environ(), testblob.Env()...),
		"DATABASE_URL="+dbURL, "BLOB_URL="+bucketURL, "SANDBOX=required", "LOG_LEVEL=debug",
		"WORKER_CONCURRENCY=1", "WORKER_BUILD_CONCURRENCY=1", "WORK_DIR="+w.workDir,
		// Limits short enough that River rescues a killed worker's job
		// within the test, long enough for a Python match on a busy machine.
		"WORKER_MATCH_TIMEOUT=4m", "WORKER_BUILD_TIMEOUT=4m", "WORKER_RESCUE_AFTER=4m10s",
		"WORKER_SHUTDOWN_GRACE=20s")
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if w.cmd.ProcessState == nil {
			w.cmd.Process.Kill()
			w.cmd.Wait()
		}
		if t.Failed() {
			t.Logf("worker %d output:\n%s", w.cmd.Process.Pid, w.out.String())
		}
	})
	return w
}

// playing returns the ids of the matches whose folders are in the
// worker's work folder: the ones it is playing.
func (w *fleetWorker) playing(t *testing.T) []int64 {
	t.Helper()
	// A worker keeps its job folders in its own folder, worker-<id>.
	dirs, err := filepath.Glob(filepath.Join(w.workDir, "worker-*", "match-*"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, d := range dirs {
		var id int64
		if _, err := fmt.Sscanf(filepath.Base(d), "match-%d-", &id); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// TestFleetSharesOnlyPostgresAndS3 runs three worker processes that share
// nothing but Postgres and an S3 bucket: builds and matches spread over
// them, a challenge queued behind a burst of ladder matches is played
// before the burst drains, and a worker killed mid-match leaves no match
// lost or rated twice.
func TestFleetSharesOnlyPostgresAndS3(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs three worker processes for a few minutes")
	}
	bin, dbURL, pool := workerProcessSetup(t)
	bucketURL := testblob.URL(t)
	e := newEnv(t, pool, bucketURL)

	var fleet []*fleetWorker
	for range 3 {
		fleet = append(fleet, startFleetWorker(t, bin, dbURL, bucketURL))
	}
	var versions []int64
	for _, name := range []string{"PyA", "PyB", "PyC"} {
		versions = append(versions, e.upload(t, name, zipDir(t, "../../bots/entelect-python3", nil)))
	}
	var bots []int64
	for _, v := range versions {
		got := e.waitBuilt(t, v, 3*time.Minute)
		if got.BuildStatus != store.BuildOK {
			t.Fatalf("build: %s\n%s", got.BuildStatus, got.BuildLog)
		}
		if ok, err := e.bucket.Exists(e.ctx, blob.ArtifactKey(v)); err != nil || !ok {
			t.Fatalf("built bot %d not in S3: %v", v, err)
		}
		bots = append(bots, got.BotID)
	}

	// A burst of ladder matches, then a challenge and a new upload behind it.
	var ladder []int64
	for i := range 6 {
		ladder = append(ladder, e.createMatch(t, int64(100+i), bots[i%3], bots[(i+1)%3]))
	}
	challenge := e.createKindMatch(t, "challenge", 7, bots[0], bots[2])
	late := e.upload(t, "PyLate", zipDir(t, "../../bots/entelect-python3", nil))

	// Kill a worker in the middle of a match it plays.
	var victim *fleetWorker
	var killed int64
	events := listenMatchEvents(t, e)
	e.waitFor(t, 5*time.Minute, "a worker to play a match", func() bool {
		for _, w := range fleet {
			for _, id := range w.playing(t) {
				// Not the challenge: its start time, checked below, is
				// that of its second attempt once it is killed.
				if id == challenge {
					continue
				}
				if e.count(t, `SELECT count(*) FROM matches WHERE id = $1 AND status = 'running'`, id) == 1 {
					victim, killed = w, id
					return true
				}
			}
		}
		return false
	})
	// Mid-match: a round of it played since.
	events.waitRound(t, killed, 1, 2*time.Minute)
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	victim.cmd.Wait()

	if got := e.waitBuilt(t, late, 6*time.Minute); got.BuildStatus != store.BuildOK {
		t.Errorf("build queued behind the burst: %s", got.BuildStatus)
	}
	for _, id := range append(append([]int64{}, ladder...), challenge) {
		if m := e.waitMatch(t, id, 15*time.Minute); m.Status != store.MatchFinished {
			t.Fatalf("match %d: %s %s", id, m.Status, m.Error)
		}
		if ok, err := e.bucket.Exists(e.ctx, blob.ReplayKey(id)); err != nil || !ok {
			t.Errorf("replay of match %d not in S3: %v", id, err)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM rating_events`); n != 2*len(ladder) {
		t.Errorf("%d rating events, want 2 for each of the %d ranked matches", n, len(ladder))
	}
	if n := e.count(t, `SELECT coalesce(sum(games), 0)::int FROM ratings`); n != 2*len(ladder) {
		t.Errorf("ratings count %d games, want %d", n, 2*len(ladder))
	}
	if n := e.count(t, `SELECT attempt FROM matches WHERE id = $1`, killed); n < 2 {
		t.Errorf("the killed match %d was played %d times, want a second attempt", killed, n)
	}
	// The challenge did not wait for the whole burst (the killed match,
	// started again later, does not count).
	if n := e.count(t, `SELECT count(*) FROM matches WHERE id = ANY($1) AND id <> $3
		AND started_at > (SELECT started_at FROM matches WHERE id = $2)`, ladder, challenge, killed); n == 0 {
		t.Errorf("the challenge started after every ladder match of the burst")
	}
	// Every live worker took part in the matches.
	for i, w := range fleet {
		if w != victim && !strings.Contains(w.out.String(), "match: finished") {
			t.Errorf("worker %d played no match", i)
		}
	}
}

// createKindMatch records an unranked match of kind between bots' current
// versions and queues it, as a challenge does.
func (e *env) createKindMatch(t *testing.T, kind string, seed int64, botIDs ...int64) int64 {
	t.Helper()
	return e.queueMatch(t, store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: seed, Kind: kind}, botIDs)
}
