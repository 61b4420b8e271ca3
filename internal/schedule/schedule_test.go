package schedule

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// schedFixture is a scheduler on a fresh database with n built entelect
// bots of n owners.
func schedFixture(t *testing.T, n, slots int) (*Scheduler, *store.Store, []int64) {
	t.Helper()
	t.Parallel()
	pool := testdb.NewPool(t)
	st := store.New(pool)
	s, err := New(Config{Pool: pool, LadderGames: []string{"entelect"}, LadderSlots: slots, Rules: rulesets.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := jobs.NewClient(pool)
	if err != nil {
		t.Fatal(err)
	}
	s.Attach(c)
	var bots []int64
	for i := 0; i < n; i++ {
		bots = append(bots, builtBot(t, st, fmt.Sprintf("owner%d", i)))
	}
	return s, st, bots
}

func countRows(t *testing.T, st *store.Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLadderTickFillsFreeSlots: the matchmaker creates ranked placement
// matches for new bots, each with its job, in pairs with the seats
// swapped, never more than LadderSlots waiting, and never a second pairing
// for a busy bot.
func TestLadderTickFillsFreeSlots(t *testing.T) {
	s, st, _ := schedFixture(t, 6, 2)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	if err := s.LadderTick(ctx, rng); err != nil {
		t.Fatal(err)
	}
	placement := `SELECT count(*) FROM matches WHERE kind = 'placement' AND ranked AND status = 'queued'`
	if n := countRows(t, st, placement); n != 2 {
		t.Fatalf("first tick queued %d placement matches, want the 2 slots", n)
	}
	if n := countRows(t, st, `SELECT count(*) FROM river_job WHERE kind = 'match'`); n != 2 {
		t.Errorf("%d match jobs for 2 matches", n)
	}
	// The two matches are the halves of one pair: same seed, seats swapped.
	if n := countRows(t, st, `
		SELECT count(*) FROM matches a JOIN matches b ON b.pair_id = a.id AND b.id > a.id AND b.seed = a.seed
		JOIN match_players a0 ON a0.match_id = a.id AND a0.seat = 0 JOIN match_players a1 ON a1.match_id = a.id AND a1.seat = 1
		JOIN match_players b0 ON b0.match_id = b.id AND b0.seat = 0 JOIN match_players b1 ON b1.match_id = b.id AND b1.seat = 1
		WHERE a.pair_id = a.id AND a0.bot_id = b1.bot_id AND a1.bot_id = b0.bot_id
		  AND a0.bot_version_id = b1.bot_version_id AND a1.bot_version_id = b0.bot_version_id`); n != 1 {
		t.Errorf("%d pairs with the seats swapped, want 1", n)
	}
	// The saved queue holds the two bots left waiting, in order.
	if n := countRows(t, st, `SELECT count(*) FROM ladder_queue WHERE game = 'entelect' AND position IN (1, 2) AND placement_left = 5`); n != 2 {
		t.Errorf("saved queue has %d of the 2 waiting bots", n)
	}
	if err := s.LadderTick(ctx, rng); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, st, placement); n != 2 {
		t.Errorf("a tick with no free slot queued more: %d", n)
	}
	if n := countRows(t, st, `
		SELECT count(*) FROM (SELECT p.bot_id FROM match_players p JOIN matches m ON m.id = p.match_id
		WHERE m.status = 'queued' GROUP BY p.bot_id HAVING count(DISTINCT coalesce(m.pair_id, m.id)) > 1) busy`); n != 0 {
		t.Errorf("%d bots have two ladder pairings queued", n)
	}
}

// TestBattleTickStartsDueBattles: a battle whose start time has come is
// started by the tick, its versions frozen and its games queued as jobs.
func TestBattleTickStartsDueBattles(t *testing.T) {
	s, st, bots := schedFixture(t, 3, 1)
	ctx := context.Background()
	org, err := st.UserEnsure(ctx, "organiser")
	if err != nil {
		t.Fatal(err)
	}
	due, err := st.BattleCreate(ctx, store.BattleCreateParams{
		Name: "due", OrganiserID: org.ID, Format: "round_robin", Game: "entelect", MapSize: 1, GamesPerPairing: 1,
		StartAt: time.Now().Add(-time.Second), EntryDeadline: time.Now().Add(-time.Minute), Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	later, err := st.BattleCreate(ctx, store.BattleCreateParams{
		Name: "later", OrganiserID: org.ID, Format: "round_robin", Game: "entelect", MapSize: 1, GamesPerPairing: 1,
		StartAt: time.Now().Add(time.Hour), EntryDeadline: time.Now().Add(time.Minute), Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{due, later} {
		for _, b := range bots {
			bot, err := st.BotGetByID(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.BattleEnter(ctx, id, b, bot.OwnerID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.BattleTick(ctx); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[int64]string{due: "running", later: "open"} {
		b, err := st.BattleGetByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != want {
			t.Errorf("battle %s is %s, want %s", b.Name, b.Status, want)
		}
	}
	// Three entrants: three pairings of one game each, every one a job.
	if n := countRows(t, st, `SELECT count(*) FROM battle_games WHERE battle_id = $1`, due); n != 3 {
		t.Errorf("%d games scheduled, want 3", n)
	}
	if n := countRows(t, st, `SELECT count(*) FROM river_job WHERE kind = 'match'`); n != 3 {
		t.Errorf("%d match jobs, want 3", n)
	}
	if n := countRows(t, st, `SELECT count(*) FROM battle_entries WHERE battle_id = $1 AND bot_version_id IS NULL`, due); n != 0 {
		t.Errorf("%d entries without a frozen version", n)
	}
	// A second tick changes nothing while the games wait.
	if err := s.BattleTick(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, st, `SELECT count(*) FROM battle_games WHERE battle_id = $1`, due); n != 3 {
		t.Errorf("second tick: %d games", n)
	}
}
