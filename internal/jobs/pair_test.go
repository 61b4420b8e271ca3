package jobs_test

import (
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/store"
)

// ladderBots uploads the same bot folder as n bots of n owners (the ladder
// never matches two bots of one owner), waits for their builds and
// returns their ids.
func ladderBots(t *testing.T, e *env, game, dir string, n int) []int64 {
	t.Helper()
	data := zipDir(t, dir, nil)
	var bots []int64
	for i := range n {
		v := e.upload(t, game+"-twin-"+string(rune('a'+i)), data)
		got := e.waitBuilt(t, v, 3*time.Minute)
		if got.BuildStatus != store.BuildOK {
			t.Fatalf("version %d: %s\n%s", v, got.BuildStatus, got.BuildLog)
		}
		var owner int64
		if err := e.pool.QueryRow(e.ctx, `INSERT INTO users (username, password_hash) VALUES ($1, 'x') RETURNING id`,
			game+"-owner-"+string(rune('a'+i))).Scan(&owner); err != nil {
			t.Fatal(err)
		}
		if _, err := e.pool.Exec(e.ctx, `UPDATE bots SET owner_id = $1 WHERE id = $2`, owner, got.BotID); err != nil {
			t.Fatal(err)
		}
		bots = append(bots, got.BotID)
	}
	return bots
}

// ladderTick runs the matchmaker once for game, as the scheduler does, and
// returns the matches it queued.
func ladderTick(t *testing.T, e *env, game string, slots int) []int64 {
	t.Helper()
	svc := competition.New(e.st, e.client, slog.New(slog.DiscardHandler), rulesets.Registry())
	before := e.count(t, `SELECT coalesce(max(id), 0) FROM matches`)
	n, err := svc.LadderTick(e.ctx, game, slots, rand.New(rand.NewPCG(7, 11)))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := e.pool.Query(e.ctx, `SELECT id FROM matches WHERE id > $1 ORDER BY id`, before)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	if len(ids) != n {
		t.Fatalf("tick reported %d matches, created %d", n, len(ids))
	}
	return ids
}

// TestLadderPairIsEvenForIdenticalBots puts two copies of In Deep Ship's
// starter bot (a fixed seed: deterministic) on the ladder. The matchmaker
// queues one pair: two matches with the same seed and the seats swapped.
// The worker plays both in the sandbox; the pair scores exactly even, and
// the ratings move once, when the second half is recorded, to the same
// value for both bots. The recomputation from history agrees.
func TestLadderPairIsEvenForIdenticalBots(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and plays real bots")
	}
	e := setup(t)
	startWorkerGames(t, e, t.TempDir(), rulesets.Registry())
	bots := ladderBots(t, e, "deepship", "../../bots/deepship-python3", 2)

	ids := ladderTick(t, e, "deepship", 2)
	if len(ids) != 2 {
		t.Fatalf("one tick of two slots queued %d matches, want one pair", len(ids))
	}
	halves := make([]*store.MatchRow, 2)
	for i, id := range ids {
		halves[i] = e.waitMatch(t, id, 5*time.Minute)
		if halves[i].Status != store.MatchFinished {
			t.Fatalf("match %d %s: %s", id, halves[i].Status, halves[i].Error)
		}
	}
	a, b := halves[0], halves[1]
	if a.PairID == nil || b.PairID == nil || *a.PairID != a.ID || *b.PairID != a.ID {
		t.Fatalf("pair links %v %v, want both %d", a.PairID, b.PairID, a.ID)
	}
	if a.Seed != b.Seed || a.Players[0].BotID != b.Players[1].BotID || a.Players[1].BotID != b.Players[0].BotID {
		t.Fatalf("halves not mirrored: seeds %d %d, seats %d,%d and %d,%d", a.Seed, b.Seed,
			a.Players[0].BotID, a.Players[1].BotID, b.Players[0].BotID, b.Players[1].BotID)
	}

	// Exactly even: each bot's results over the pair are the other's.
	record := map[int64][]string{}
	for _, h := range halves {
		for _, p := range h.Players {
			record[p.BotID] = append(record[p.BotID], p.Outcome)
		}
	}
	score := func(outcomes []string) float64 {
		s := 0.0
		for _, o := range outcomes {
			s += map[string]float64{"win": 1, "draw": 0.5}[o]
		}
		return s
	}
	if sa, sb := score(record[bots[0]]), score(record[bots[1]]); sa != 1 || sb != 1 {
		t.Fatalf("pair not even: %v (%v) against %v (%v)", record[bots[0]], sa, record[bots[1]], sb)
	}

	// One rating update for the pair, recorded on the half that closed it.
	closing := e.count(t, `SELECT match_id FROM rating_events GROUP BY match_id`)
	if n := e.count(t, `SELECT count(*) FROM rating_events`); n != 2 {
		t.Fatalf("%d rating events, want one per bot for the pair", n)
	}
	if closing != int(a.ID) && closing != int(b.ID) {
		t.Fatalf("rating events on match %d, not on the pair", closing)
	}
	ra, err := e.st.RatingGet(e.ctx, bots[0], "deepship")
	if err != nil {
		t.Fatal(err)
	}
	rb, err := e.st.RatingGet(e.ctx, bots[1], "deepship")
	if err != nil {
		t.Fatal(err)
	}
	if ra.Rating != rb.Rating || ra.Deviation != rb.Deviation || ra.Rating != 1500 || ra.Games != 2 || rb.Games != 2 {
		t.Fatalf("ratings %+v and %+v, want both 1500 after two games", ra, rb)
	}
	if ra.Deviation >= 350 {
		t.Fatalf("deviation %v did not shrink", ra.Deviation)
	}
	rep, err := competition.RecomputeRatings(e.ctx, e.st, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Matches != 2 || len(rep.Differences) != 0 {
		t.Fatalf("recomputed %+v", rep)
	}
}

// TestPlatformFaultLeavesRatings: a ranked pair that cannot be played
// because the platform lost a bot's build artifact fails, both halves, as
// the platform's fault with its reason, and no rating moves.
func TestPlatformFaultLeavesRatings(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and plays real bots")
	}
	e := setup(t)
	startWorkerGames(t, e, t.TempDir(), rulesets.Registry())
	bots := ladderBots(t, e, "deepship", "../../bots/deepship-python3", 2)
	for i, id := range bots {
		if _, err := e.pool.Exec(e.ctx, `INSERT INTO ratings (bot_id, ladder, rating, deviation, volatility, games, wins)
			VALUES ($1, 'deepship', $2, 120, 0.06, 10, 5)`, id, 1600+100*i); err != nil {
			t.Fatal(err)
		}
	}
	var key string
	if err := e.pool.QueryRow(e.ctx, `SELECT v.artifact_key FROM bots b JOIN bot_versions v ON v.id = b.current_version_id
		WHERE b.id = $1`, bots[0]).Scan(&key); err != nil {
		t.Fatal(err)
	}
	if err := e.bucket.Delete(e.ctx, key); err != nil {
		t.Fatal(err)
	}
	ids := ladderTick(t, e, "deepship", 2)
	if len(ids) != 2 {
		t.Fatalf("queued %d matches, want a pair", len(ids))
	}
	for _, id := range ids {
		m := e.waitMatch(t, id, 5*time.Minute)
		if m.Status != store.MatchFailed || m.Fault != store.FaultPlatform || !strings.Contains(m.Error, "built files") {
			t.Fatalf("match %d: %s, fault %q: %q", id, m.Status, m.Fault, m.Error)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM rating_events`); n != 0 {
		t.Fatalf("%d rating events for a pair the platform failed", n)
	}
	for i, id := range bots {
		r, err := e.st.RatingGet(e.ctx, id, "deepship")
		if err != nil {
			t.Fatal(err)
		}
		if r.Rating != float64(1600+100*i) || r.Deviation != 120 || r.Games != 10 || r.Wins != 5 {
			t.Fatalf("bot %d's rating moved: %+v", id, r)
		}
	}
	failed, err := e.st.PlatformFailures(e.ctx, store.PlatformFailureParams{BotID: bots[1], Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) != 2 || !strings.Contains(failed[0].Error, "built files") {
		t.Fatalf("bot's platform failures %+v", failed)
	}
}
