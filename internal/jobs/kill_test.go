package jobs_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testdb"
	"github.com/broadside/broadside/internal/testenv"
)

// workerProcessSetup gets the worker binary, built as cmd/worker is, and
// makes a database of the test's own for worker processes, with a pool on
// it for the test.
func workerProcessSetup(t *testing.T) (bin, dbURL string, pool *pgxpool.Pool) {
	t.Helper()
	bin = testenv.GoBinary(t, "github.com/broadside/broadside/cmd/worker")
	dbURL = testdb.URL(t)
	pool, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return bin, dbURL, pool
}

// startWorkerProcess runs the real worker binary on the test's database;
// env adds or overrides variables.
func startWorkerProcess(t *testing.T, bin, dbURL, blobDir, workDir string, env ...string) (*exec.Cmd, *testenv.Buffer) {
	t.Helper()
	// The bots are untrusted code, as in production: never unconfined.
	testenv.RequireErr(t, "an enforced sandbox", sandbox.Require(sandbox.Probe(context.Background())))
	cmd := exec.Command(bin)
	out := &testenv.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+dbURL, "BLOB_URL="+blobDir, "SANDBOX=required", "LOG_LEVEL=debug",
		"WORKER_CONCURRENCY=1", "WORKER_BUILD_CONCURRENCY=1", "WORK_DIR="+workDir,
		// Heartbeats every second, dead after three: the killed worker's
		// job must come back through its heartbeats going silent, long
		// before River's own rescuer (WORKER_RESCUE_AFTER) would act.
		"WORKER_HEARTBEAT=1s", "WORKER_DEAD_AFTER=3s", "WORKER_RESCUE_AFTER=30m",
		"WORKER_MATCH_TIMEOUT=3m", "WORKER_BUILD_TIMEOUT=3m",
		"WORKER_SHUTDOWN_GRACE=20s")
	cmd.Env = append(cmd.Env, env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("worker %d output:\n%s", cmd.Process.Pid, out.String())
		}
	})
	return cmd, out
}

// TestKillWorkerMidMatch kills a real worker process while it plays a
// ranked match: its heartbeats stop, the rescue tick hands the job back,
// another worker plays the match again from the start, and it is recorded
// and rated exactly once. The new worker also removes the folder the dead
// one left on the shared WORK_DIR.
func TestKillWorkerMidMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes for about two minutes")
	}
	bin, dbURL, pool := workerProcessSetup(t)
	blobDir := t.TempDir()
	e := newEnv(t, pool, blobDir)

	// Python starters: a match of theirs lasts several seconds, a fresh
	// interpreter every turn.
	a := e.upload(t, "PyA", zipDir(t, "../../bots/entelect-python3", nil))
	b := e.upload(t, "PyB", zipDir(t, "../../bots/entelect-python3", nil))

	workDir := t.TempDir()
	first, _ := startWorkerProcess(t, bin, dbURL, blobDir, workDir)
	for _, v := range []int64{a, b} {
		if got := e.waitBuilt(t, v, 2*time.Minute); got.BuildStatus != "ok" {
			t.Fatalf("build: %s\n%s", got.BuildStatus, got.BuildLog)
		}
	}
	va, _ := e.st.BotVersionGetByID(e.ctx, a)
	vb, _ := e.st.BotVersionGetByID(e.ctx, b)
	events := listenMatchEvents(t, e)
	matchID := e.createMatch(t, 99, va.BotID, vb.BotID)

	// Well into the match: a few rounds announced by the worker.
	events.waitRound(t, matchID, 3, 2*time.Minute)
	if n := e.count(t, `SELECT count(*) FROM matches WHERE id = $1 AND status = 'running'`, matchID); n != 1 {
		t.Fatal("the match ended before the kill")
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	killed := time.Now()
	left, _ := filepath.Glob(filepath.Join(workDir, "worker-*"))
	if len(left) != 1 {
		t.Fatalf("work folders after the kill: %v, want the dead worker's one", left)
	}

	second, out := startWorkerProcess(t, bin, dbURL, blobDir, workDir)
	t.Cleanup(func() {
		if t.Failed() {
			dumpRows(t, e, `SELECT id, kind, state, attempt, attempted_by::text, errors::text FROM river_job ORDER BY id`)
			dumpRows(t, e, `SELECT worker_id, last_seen_at::text, now()::text FROM worker_heartbeats`)
		}
	})
	m := e.waitMatch(t, matchID, 6*time.Minute)
	if m.Status != "finished" {
		t.Fatalf("match %s: %s", m.Status, m.Error)
	}
	var attempt int
	e.pool.QueryRow(e.ctx, `SELECT attempt FROM matches WHERE id = $1`, matchID).Scan(&attempt)
	if attempt != 2 {
		t.Errorf("match played %d times, want 2 (killed, then replayed)", attempt)
	}
	if n := e.count(t, `SELECT count(*) FROM rating_events WHERE match_id = $1`, matchID); n != 2 {
		t.Errorf("%d rating events, want 2", n)
	}
	if n := e.count(t, `SELECT count(*) FROM ratings WHERE games = 1`); n != 2 {
		t.Errorf("%d bots rated once, want 2", n)
	}
	if n := e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'match' AND state = 'completed' AND attempt = 2`); n != 1 {
		t.Errorf("match job not completed on its second attempt")
	}
	if n := e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'match'
		AND errors[1]->>'error' LIKE '%stopped sending heartbeats; job rescued'`); n != 1 {
		t.Errorf("the match job was not rescued for its worker's silence")
	}
	t.Logf("match finished %s after the kill", time.Since(killed).Round(time.Second))
	if _, err := os.Stat(left[0]); !os.IsNotExist(err) {
		t.Errorf("the dead worker's folder %s is still there (%v)", left[0], err)
	}

	// SIGTERM: the idle worker stops cleanly.
	if err := second.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- second.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("worker exit after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("worker did not stop within 30 s of SIGTERM")
	}
	if !strings.Contains(out.String(), "worker stopped") {
		t.Errorf("no clean stop in the log")
	}
}

// dumpRows logs a query's rows, to see the queue when a test fails.
func dumpRows(t *testing.T, e *env, query string) {
	t.Helper()
	rows, err := e.pool.Query(context.Background(), query)
	if err != nil {
		t.Logf("%s: %v", query, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		vals, _ := rows.Values()
		t.Logf("%v", vals)
	}
}
