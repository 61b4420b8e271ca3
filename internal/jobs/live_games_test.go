package jobs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
	"github.com/broadside/broadside/web/board"
)

// TestWorkerPublishesOtherGames plays a match of each replay.json rule set
// through the worker and follows it as a portal does: each announced round
// is read from match_live_rounds, assembled and drawn while the match is
// still running, and the boards drawn grow step by step.
func TestWorkerPublishesOtherGames(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and plays real bots")
	}
	e := newEnv(t, testdb.NewPool(t), t.TempDir())
	// Rounds are published every millisecond at most here, not every
	// quarter of a second as by a real worker: an In Deep Ship match
	// plays its hundreds of steps in less, and the boards are to be seen
	// growing. The rounds still come in batches whenever the database is
	// slower than the rounds.
	startWorkerWith(t, e, t.TempDir(), rulesets.Registry(), func(d *jobs.Deps) { d.LiveEvery = time.Millisecond })
	games := []struct {
		game, dir string
		seats     int
	}{
		{"brainjar", "../../bots/brainjar-python3", 2},
		{"deepship", "../../bots/deepship-python3", 2},
		{"hitandsunk", "../../bots/hitandsunk-python3", 3},
	}
	bots := map[string][]int64{}
	for _, g := range games {
		data := zipDir(t, g.dir, nil)
		var versions []int64
		for i := range g.seats {
			versions = append(versions, e.upload(t, fmt.Sprintf("live-%s-%d", g.game, i), data))
		}
		for _, v := range versions {
			got := e.waitBuilt(t, v, 3*time.Minute)
			if got.BuildStatus != store.BuildOK {
				t.Fatalf("%s version %d: %s\n%s", g.game, v, got.BuildStatus, got.BuildLog)
			}
			bots[g.game] = append(bots[g.game], got.BotID)
		}
	}
	for _, g := range games {
		t.Run(g.game, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(e.ctx, 10*time.Minute)
			defer cancel()
			conn, err := e.pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Release()
			if _, err := conn.Exec(ctx, "LISTEN match_events"); err != nil {
				t.Fatal(err)
			}
			id := e.createFollowedMatch(t, g.game, bots[g.game]...)
			follow(ctx, e.st, id)
			live := board.NewLive()
			next, drawn, last := 0, 0, 0
			var status string
			for status != "finished" && status != "failed" {
				n, err := conn.Conn().WaitForNotification(ctx)
				if err != nil {
					t.Fatalf("after %d rounds drawn, status %q: %v", drawn, status, err)
				}
				var ev store.MatchEvent
				if json.Unmarshal([]byte(n.Payload), &ev) != nil || ev.Match != id {
					continue
				}
				if ev.Round == nil {
					status = ev.Status
					continue
				}
				// The match may end before the rounds are read: the
				// rounds go with it, which is what the page sees too.
				rounds, err := e.st.MatchLiveRounds(ctx, id, next)
				if err != nil {
					t.Fatal(err)
				}
				if len(rounds) == 0 {
					continue
				}
				for _, r := range rounds {
					if r.Seq != next {
						t.Fatalf("round %d read after %d", r.Seq, next-1)
					}
					if err := live.Add(r.Name, r.Files); err != nil {
						t.Fatalf("round %d: %v", r.Seq, err)
					}
					next++
				}
				rp, err := live.Open()
				if err != nil {
					t.Fatalf("after round %d: %v", next-1, err)
				}
				if rp.Game() != g.game {
					t.Fatalf("live replay of %s, want %s", rp.Game(), g.game)
				}
				if rp.Count() == 0 {
					continue // In Deep Ship before its first placement
				}
				f, err := rp.Frame(rp.Count()-1, board.Options{})
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := board.Body(f).Render(ctx, &buf); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(buf.String(), "<svg") {
					t.Fatalf("round %d drawn without a board:\n%.500s", next-1, buf.String())
				}
				if f.Count < last {
					t.Fatalf("live replay shrank from %d to %d steps", last, f.Count)
				}
				last = f.Count
				drawn++
			}
			m := e.waitMatch(t, id, 10*time.Minute)
			if m.Status != store.MatchFinished {
				t.Fatalf("match %s: %s", m.Status, m.Error)
			}
			// At least the start and two steps after it were drawn live,
			// and they reached steps beyond the start.
			if drawn < 3 || last < 3 {
				t.Errorf("%d rounds drawn live, the last with %d steps", drawn, last)
			}
			t.Logf("%s: %d rounds published, %d drawn live, %d steps at the last", g.game, next, drawn, last)
		})
	}
}

// createFollowedMatch queues a ladder match of game between bots, seed 7,
// announced as followed in the transaction that queues it: the worker
// hears of the viewer when it hears of the match, so no round of a short
// match is held back for an announcement that came after its start.
func (e *env) createFollowedMatch(t *testing.T, game string, botIDs ...int64) int64 {
	t.Helper()
	p := store.MatchCreateParams{Game: game, Seed: 7, Kind: "ladder", Ranked: true}
	return e.queueMatchWith(t, p, botIDs, func(st *store.Store, id int64) error {
		return st.MatchWatchAnnounce(e.ctx, []int64{id})
	})
}
