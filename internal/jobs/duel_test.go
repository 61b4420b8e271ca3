package jobs_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/entelect"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
)

// TestWorkerPlaysADuel: a duel of two versions of the Python starter plays
// through the worker's queue, each game a real match, the next games
// queued by the worker as results come in, until its verdict; the
// duel-finished hook fires once, and no game is rated.
func TestWorkerPlaysADuel(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and plays real bots")
	}
	e := setup(t)
	var mu sync.Mutex
	var finished []int64
	startWorkerWith(t, e, t.TempDir(), game.NewRegistry(entelect.New()), func(d *jobs.Deps) {
		d.DuelFinished = func(_ context.Context, id int64) {
			mu.Lock()
			defer mu.Unlock()
			finished = append(finished, id)
		}
	})
	zip := zipDir(t, "../../bots/entelect-python3", nil)
	v1 := e.upload(t, "Pythonista", zip)
	if got := e.waitBuilt(t, v1, 3*time.Minute); got.BuildStatus != store.BuildOK {
		t.Fatalf("version 1: %s\n%s", got.BuildStatus, got.BuildLog)
	}
	v2 := e.upload(t, "Pythonista", zip)
	got := e.waitBuilt(t, v2, 3*time.Minute)
	if got.BuildStatus != store.BuildOK {
		t.Fatalf("version 2: %s\n%s", got.BuildStatus, got.BuildLog)
	}

	svc := competition.New(e.st, e.client, slog.New(slog.DiscardHandler), rulesets.Registry())
	svc.DefaultMapSize["entelect"] = 1
	const games = 4
	id, err := svc.StartDuel(e.ctx, competition.DuelParams{UserID: e.owner, BotID: got.BotID, Version: 2, OpponentVersion: 1, MaxGames: games})
	if err != nil {
		t.Fatal(err)
	}
	var d *store.Duel
	e.waitFor(t, 6*time.Minute, "the duel's verdict", func() bool {
		d, err = e.st.DuelGetByID(e.ctx, id)
		return err == nil && d.Status != store.DuelRunning
	})
	// Four games cannot decide: even four wins in a row are too few for
	// the test, so the games run out.
	if d.Status != store.DuelFinished || d.Verdict != "undecided" || d.WinsA+d.WinsB+d.Draws != games || d.FinishedAt == nil {
		t.Fatalf("duel %s %q after %d+%d+%d games: %s", d.Status, d.Verdict, d.WinsA, d.WinsB, d.Draws, d.Error)
	}
	list, err := e.st.DuelGames(e.ctx, id)
	if err != nil || len(list) != games {
		t.Fatalf("%d games (%v), want %d", len(list), err, games)
	}
	for _, g := range list {
		if g.Status != store.MatchFinished {
			t.Errorf("game %d: %s %s", g.Index, g.Status, g.Error)
		}
	}
	if list[0].Seed != list[1].Seed || list[2].Seed != list[3].Seed || list[0].Seed == list[2].Seed {
		t.Errorf("seeds %d %d %d %d: want each seed twice", list[0].Seed, list[1].Seed, list[2].Seed, list[3].Seed)
	}
	if n := e.count(t, `SELECT count(*) FROM rating_events`); n != 0 {
		t.Errorf("%d rating events from a duel", n)
	}
	if n := e.count(t, `SELECT count(*) FROM matches WHERE duel_id = $1 AND kind = 'duel' AND NOT ranked`, id); n != games {
		t.Errorf("%d unranked duel matches, want %d", n, games)
	}
	// The hook runs after the commit that recorded the verdict, which the
	// wait above may see first: the job's completion comes after it.
	e.waitFor(t, 5*time.Minute, "the duel-finished hook", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(finished) > 0
	})
	mu.Lock()
	defer mu.Unlock()
	if len(finished) != 1 || finished[0] != id {
		t.Errorf("duel-finished hook called with %v, want once with %d", finished, id)
	}
}
