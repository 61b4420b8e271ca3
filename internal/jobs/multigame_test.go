package jobs_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/store"
)

// TestWorkerOtherGames takes the starter bots of every game but Entelect
// through the portal's pipeline: upload, build in the sandbox, one ranked
// match per game in the worker (Hit and Sunk as a three-seat free-for-all),
// and checks what lands: results, seats, ranks, replay, and ratings on
// that game's own ladder only.
func TestWorkerOtherGames(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and plays real bots")
	}
	e := setup(t)
	startWorkerGames(t, e, t.TempDir(), rulesets.Registry())

	games := []struct {
		game, dir string
		seats     int
	}{
		{"brainjar", "../../bots/brainjar-python3", 2},
		{"deepship", "../../bots/deepship-python3", 2},
		{"hitandsunk", "../../bots/hitandsunk-python3", 3},
	}
	versions := map[string][]int64{}
	for _, g := range games {
		data := zipDir(t, g.dir, nil)
		for i := range g.seats {
			versions[g.game] = append(versions[g.game], e.upload(t, fmt.Sprintf("%s-%d", g.game, i+1), data))
		}
	}
	for _, g := range games {
		for _, v := range versions[g.game] {
			got := e.waitBuilt(t, v, 3*time.Minute)
			if got.BuildStatus != store.BuildOK || got.ArtifactKey == "" {
				t.Fatalf("%s version %d: %s\n%s", g.game, v, got.BuildStatus, got.BuildLog)
			}
		}
	}

	matches := map[string]int64{}
	for _, g := range games {
		var bots []int64
		for _, v := range versions[g.game] {
			bv, err := e.st.BotVersionGetByID(e.ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			b, err := e.st.BotGetByID(e.ctx, bv.BotID)
			if err != nil || b.Game != g.game {
				t.Fatalf("bot %d plays %q, want %q (%v)", bv.BotID, b.Game, g.game, err)
			}
			bots = append(bots, bv.BotID)
		}
		matches[g.game] = e.createGameMatch(t, g.game, 0, 11, bots...)
	}

	for _, g := range games {
		t.Run(g.game, func(t *testing.T) {
			id := matches[g.game]
			m := e.waitMatch(t, id, 6*time.Minute)
			if m.Status != store.MatchFinished {
				t.Fatalf("match %s: %s", m.Status, m.Error)
			}
			if m.Game != g.game || m.Rounds == 0 || m.ReplayKey != blob.ReplayKey(id) || len(m.Summary) == 0 {
				t.Fatalf("match row %+v", m)
			}
			if len(m.Players) != g.seats {
				t.Fatalf("%d seats recorded, want %d", len(m.Players), g.seats)
			}
			ranks := map[int]int{}
			outcomes := map[string]int{}
			for _, p := range m.Players {
				if p.Rank < 1 || p.Rank > g.seats {
					t.Errorf("seat %d rank %d", p.Seat, p.Rank)
				}
				ranks[p.Rank]++
				outcomes[p.Outcome]++
				if p.Log == "" {
					t.Errorf("seat %d has no bot log", p.Seat)
				}
			}
			if ranks[1] == 0 {
				t.Errorf("nobody ranked first: %v", ranks)
			}
			if ranks[1] == 1 && outcomes["win"] != 1 || outcomes["win"]+outcomes["draw"]+outcomes["loss"] != g.seats {
				t.Errorf("outcomes %v for ranks %v", outcomes, ranks)
			}
			r, err := blob.Get(e.ctx, e.bucket, m.ReplayKey)
			if err != nil {
				t.Fatalf("replay not stored: %v", err)
			}
			data, _ := io.ReadAll(r)
			r.Close()
			if len(data) == 0 {
				t.Fatal("empty replay")
			}
			// REPLAY_DUMP_DIR keeps the replays: internal/web's viewer
			// tests use their replay.json as fixtures.
			if d := os.Getenv("REPLAY_DUMP_DIR"); d != "" {
				if err := os.WriteFile(filepath.Join(d, g.game+".zip"), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if n := e.count(t, `SELECT count(*) FROM rating_events WHERE match_id = $1`, id); n != g.seats {
				t.Fatalf("%d rating events, want %d", n, g.seats)
			}
			for _, p := range m.Players {
				if _, err := e.st.RatingGet(e.ctx, p.BotID, g.game); err != nil {
					t.Errorf("bot %d has no %s rating: %v", p.BotID, g.game, err)
				}
				if n := e.count(t, `SELECT count(*) FROM ratings WHERE bot_id = $1 AND ladder <> $2`, p.BotID, g.game); n != 0 {
					t.Errorf("bot %d rated on %d other ladders", p.BotID, n)
				}
			}
		})
	}
	if n := e.count(t, `SELECT count(*) FROM ratings WHERE ladder = 'entelect'`); n != 0 {
		t.Fatalf("%d ratings on the entelect ladder", n)
	}
}
