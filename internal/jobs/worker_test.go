package jobs_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/build"
	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/entelect"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// startWorker runs an in-process worker for Entelect, confined by
// bubblewrap (as SANDBOX=require).
func startWorker(t *testing.T, e *env, workDir string) {
	t.Helper()
	startWorkerGames(t, e, workDir, game.NewRegistry(entelect.New()))
}

// startWorkerGames runs an in-process worker hosting the given games.
func startWorkerGames(t *testing.T, e *env, workDir string, games *game.Registry) {
	t.Helper()
	startWorkerWith(t, e, workDir, games, nil)
}

// startWorkerWith is startWorkerGames with deps changed by change first.
func startWorkerWith(t *testing.T, e *env, workDir string, games *game.Registry, change func(*jobs.Deps)) {
	t.Helper()
	deps := jobs.Deps{
		Pool: e.pool, Bucket: e.bucket, Games: games, WorkDir: workDir,
		MatchConcurrency: 2, BuildConcurrency: 2, ShutdownGrace: 10 * time.Second,
	}
	if change != nil {
		change(&deps)
	}
	// Bots are untrusted code: they are never played on the host here.
	testenv.RequireErr(t, "an enforced sandbox", sandbox.Require(sandbox.Probe(e.ctx)))
	// The worker command's own sandboxes (cmd/worker), limits included.
	sb, err := jobs.NewSandboxes(nil)
	if err != nil {
		t.Fatal(err)
	}
	deps.Bwrap = sb.Match
	b := build.New(sb.Build, rulesets.Registry())
	// Maven downloads from Debian's system repository (scripts/setup.sh
	// installs the plugins there): no network needed.
	b.Env = []string{"MAVEN_MIRROR=file:///usr/share/maven-repo"}
	deps.Builder = b
	runWorker(t, e, deps)
}

// runWorker starts a worker with deps as e's worker, stopped when the
// test ends.
func runWorker(t *testing.T, e *env, deps jobs.Deps) {
	t.Helper()
	w, err := jobs.NewWorker(deps)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	e.worker = w
	t.Cleanup(func() {
		cancel()
		<-w.Stopped()
	})
}

// TestWorkerEndToEnd uploads real starter bots, builds them in the sandbox,
// plays a ranked match and checks everything that lands: results, replay,
// ratings, and that a duplicated job changes nothing.
func TestWorkerEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and plays real bots")
	}
	e := setup(t)
	startWorker(t, e, t.TempDir())

	py := e.upload(t, "Pythonista", zipDir(t, "../../bots/entelect-python3", nil))
	cpp := e.upload(t, "Plusser", zipDir(t, "../../bots/entelect-cplusplus", nil))
	brokenDir := t.TempDir()
	os.WriteFile(filepath.Join(brokenDir, "bot.json"), []byte(`{"BotType":"Python3","RunFile":"bot.py"}`), 0o644)
	broken := e.upload(t, "Broken", zipDir(t, brokenDir, map[string]string{"bot.py": "def broken(:\n"}))
	for _, v := range []int64{py, cpp} {
		if got := e.waitBuilt(t, v, 3*time.Minute); got.BuildStatus != "ok" || got.ArtifactKey == "" {
			t.Fatalf("version %d: %s\n%s", v, got.BuildStatus, got.BuildLog)
		}
	}
	if got := e.waitBuilt(t, broken, 5*time.Minute); got.BuildStatus != "failed" || !strings.Contains(got.BuildLog, "SyntaxError") {
		t.Fatalf("broken bot: %s\n%s", got.BuildStatus, got.BuildLog)
	}

	pyV, _ := e.st.BotVersionGetByID(e.ctx, py)
	cppV, _ := e.st.BotVersionGetByID(e.ctx, cpp)
	matchID := e.createMatch(t, 2026, pyV.BotID, cppV.BotID)
	m := e.waitMatch(t, matchID, 6*time.Minute)
	if m.Status != "finished" {
		t.Fatalf("match %s: %s", m.Status, m.Error)
	}
	if m.Rounds == 0 || m.ReplayKey != blob.ReplayKey(matchID) || len(m.Summary) == 0 {
		t.Fatalf("match row %+v", m)
	}
	outcomes := map[string]int{}
	for _, p := range m.Players {
		outcomes[p.Outcome]++
		if p.Log == "" {
			t.Errorf("seat %d has no bot log", p.Seat)
		}
	}
	if !(outcomes["win"] == 1 && outcomes["loss"] == 1) && outcomes["draw"] != 2 {
		t.Fatalf("outcomes %v", outcomes)
	}
	if ok, err := e.bucket.Exists(e.ctx, m.ReplayKey); err != nil || !ok {
		t.Fatalf("replay not stored: %v", err)
	}
	if n := e.count(t, `SELECT count(*) FROM rating_events WHERE match_id = $1`, matchID); n != 2 {
		t.Fatalf("%d rating events, want 2", n)
	}

	t.Run("a duplicated job records and rates nothing twice", func(t *testing.T) {
		// Put the completed job back as River's rescuer would a job whose
		// worker vanished after committing: it runs again.
		// Its attempts so far: on a busy machine the overload guard may
		// have had the match played twice already.
		var jobID, attempts int64
		err := e.pool.QueryRow(e.ctx, `
			UPDATE river_job SET state = 'available', finalized_at = NULL, scheduled_at = now()
			WHERE kind = 'match' AND args->>'match_id' = $1 RETURNING id, attempt`, strconv.FormatInt(matchID, 10)).Scan(&jobID, &attempts)
		if err != nil {
			t.Fatal(err)
		}
		e.waitFor(t, 5*time.Minute, "the job to run again", func() bool {
			return e.count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'completed' AND attempt = $2`, jobID, attempts+1) == 1
		})
		if n := e.count(t, `SELECT count(*) FROM rating_events WHERE match_id = $1`, matchID); n != 2 {
			t.Fatalf("%d rating events after the duplicate, want 2", n)
		}
		if n := e.count(t, `SELECT sum(games) FROM ratings`); n != 2 {
			t.Fatalf("%d games counted, want 2", n)
		}
		again, _ := e.st.MatchDetailGet(e.ctx, matchID)
		if again.FinishedAt == nil || !again.FinishedAt.Equal(*m.FinishedAt) {
			t.Fatal("the duplicate rewrote the match")
		}
	})

	t.Run("recomputed ratings equal the stored ones", func(t *testing.T) {
		second := e.createMatch(t, 7, cppV.BotID, pyV.BotID)
		if got := e.waitMatch(t, second, 6*time.Minute); got.Status != "finished" {
			t.Fatalf("second match %s: %s", got.Status, got.Error)
		}
		rep, err := competition.RecomputeRatings(e.ctx, e.st, false)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Matches != 2 || rep.Bots != 2 || len(rep.Differences) != 0 {
			t.Fatalf("report %+v", rep)
		}
		// A tampered rating is found and repaired.
		if _, err := e.pool.Exec(e.ctx, `UPDATE ratings SET rating = rating + 1, games = 9 WHERE bot_id = $1`, pyV.BotID); err != nil {
			t.Fatal(err)
		}
		rep, err = competition.RecomputeRatings(e.ctx, e.st, true)
		if err != nil || len(rep.Differences) != 1 || !rep.Written {
			t.Fatalf("report %+v, %v", rep, err)
		}
		rep, _ = competition.RecomputeRatings(e.ctx, e.st, false)
		if len(rep.Differences) != 0 {
			t.Fatalf("after repair: %+v", rep.Differences)
		}
	})

	t.Run("a seat without a built version fails the match at once", func(t *testing.T) {
		var brokenBot int64
		e.pool.QueryRow(e.ctx, `SELECT bot_id FROM bot_versions WHERE id = $1`, broken).Scan(&brokenBot)
		var id int64
		err := e.pool.QueryRow(e.ctx, `INSERT INTO matches (seed) VALUES (1) RETURNING id`).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		e.pool.Exec(e.ctx, `INSERT INTO match_players (match_id, seat, bot_id, bot_version_id) VALUES ($1, 0, $2, $3), ($1, 1, $4, $5)`,
			id, brokenBot, broken, pyV.BotID, py)
		if _, err := e.client.River().Insert(e.ctx, jobs.MatchArgs{MatchID: id}, nil); err != nil {
			t.Fatal(err)
		}
		got := e.waitMatch(t, id, 5*time.Minute)
		if got.Status != "failed" || !strings.Contains(got.Error, "Broken") {
			t.Fatalf("got %s: %q", got.Status, got.Error)
		}
	})
}
