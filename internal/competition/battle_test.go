package competition_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// noQueue accepts every match; the test plays them itself.
type noQueue struct{}

func (noQueue) EnqueueMatchTx(context.Context, pgx.Tx, int64) (bool, error) { return true, nil }

type fixture struct {
	ctx  context.Context
	st   *store.Store
	svc  *competition.Service
	org  int64
	bots []int64 // in entry order
}

// newFixture records n built bots of one game, each with its own owner,
// and an organiser.
func newFixture(t *testing.T, game string, n int) *fixture {
	t.Helper()
	t.Parallel()
	ctx := context.Background()
	st := store.New(testdb.NewPool(t))
	f := &fixture{ctx: ctx, st: st, svc: competition.New(st, noQueue{}, slog.New(slog.NewTextHandler(io.Discard, nil)), rulesets.Registry())}
	org, err := st.UserEnsure(ctx, "organiser")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UserSetRole(ctx, "organiser", "organiser"); err != nil {
		t.Fatal(err)
	}
	f.org = org.ID
	for i := 0; i < n; i++ {
		u, err := st.UserEnsure(ctx, fmt.Sprintf("player%d", i))
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.UploadRecord(ctx, store.UploadParams{
			OwnerID: u.ID, Name: fmt.Sprintf("bot%d", i), Game: game, Language: "Python3", BotType: "Python3",
			Manifest: json.RawMessage(`{}`), SourceSHA256: "00", SourceSize: 1,
			SourceKey: blob.SourceKey,
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.BotVersionFinishBuild(ctx, res.VersionID, store.BuildResult{OK: true, ArtifactKey: "a"}); err != nil {
			t.Fatal(err)
		}
		f.bots = append(f.bots, res.BotID)
	}
	return f
}

// battle creates a battle that is due, with every bot entered.
func (f *fixture) battle(t *testing.T, format, game string, perPairing int) int64 {
	t.Helper()
	id, err := f.st.BattleCreate(f.ctx, store.BattleCreateParams{
		Name: format, OrganiserID: f.org, Format: format, Game: game, MapSize: 1, GamesPerPairing: perPairing,
		StartAt: time.Now().Add(-time.Minute), EntryDeadline: time.Now().Add(-2 * time.Minute), Seed: 42,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range f.bots {
		bot, err := f.st.BotGetByID(f.ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.st.BattleEnter(f.ctx, id, b, bot.OwnerID); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// play starts the battle and finishes its queued games in waves, each
// decided by win (seat bot IDs to per-seat points), advancing the battle
// after each game as the worker does, until it ends. It returns the
// games played per wave.
func (f *fixture) play(t *testing.T, id int64, points func(bots []int64) []int) []int {
	t.Helper()
	if err := f.svc.StartDueBattles(f.ctx); err != nil {
		t.Fatal(err)
	}
	var waves []int
	for wave := 0; ; wave++ {
		if wave > 200 {
			t.Fatal("battle does not end")
		}
		games, err := f.st.BattleGames(f.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, g := range games {
			if g.MatchStatus != "queued" {
				continue
			}
			n++
			pts := points(g.BotIDs)
			res := make([]store.MatchPlayerResult, len(pts))
			best := 0
			for i, p := range pts {
				best = max(best, p)
				res[i] = store.MatchPlayerResult{Seat: i, Key: string(rune('A' + i)), Points: p}
			}
			for i := range res {
				res[i].Outcome = "loss"
				if res[i].Points == best {
					res[i].Outcome = "win"
				}
			}
			if err := f.st.MatchFinish(f.ctx, store.MatchFinishParams{ID: g.MatchID, Summary: json.RawMessage(`{}`), Players: res}); err != nil {
				t.Fatal(err)
			}
			if err := f.svc.AdvanceBattle(f.ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		if n > 0 {
			waves = append(waves, n)
		}
		b, err := f.st.BattleGetByID(f.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != "running" {
			if b.Status != "finished" {
				t.Fatalf("battle ended %s", b.Status)
			}
			return waves
		}
		if n == 0 {
			t.Fatal("a running battle has nothing queued")
		}
	}
}

// byBotID makes the lower bot ID (the earlier entry) win every game.
func byBotID(bots []int64) []int {
	pts := make([]int, len(bots))
	for i, b := range bots {
		pts[i] = int(1000 - b)
	}
	return pts
}

func (f *fixture) finalPositions(t *testing.T, id int64) map[int64]int {
	t.Helper()
	entries, err := f.st.BattleEntries(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]int{}
	for _, e := range entries {
		if e.FinalPosition == nil {
			t.Fatalf("bot %d has no final position", e.BotID)
		}
		if e.VersionID == nil {
			t.Fatalf("bot %d has no frozen version", e.BotID)
		}
		out[e.BotID] = *e.FinalPosition
	}
	return out
}

// TestBattlesPlayToTheEnd plays every format as results land: the
// better bot (lower ID) always wins, so the final positions follow the
// entry order (docs/competition.md, Battles).
func TestBattlesPlayToTheEnd(t *testing.T) {
	cases := []struct {
		name    string
		format  string
		game    string
		n       int
		perPair int
		waves   []int
	}{
		// Round robin: all 15 pairings × 2 games scheduled at once.
		{"round robin of 6", "round_robin", "entelect", 6, 2, []int{30}},
		// Swiss: ⌈log₂ 7⌉ = 3 rounds of 3 games, one bye each.
		{"swiss of 7", "swiss", "entelect", 7, 1, []int{3, 3, 3}},
		// Double elimination of 5 on a bracket of 8: byes for the top 3.
		{"double elimination of 5", "double_elimination", "entelect", 5, 1, nil},
		// Hit and Sunk: one free-for-all game of everyone.
		{"free-for-all of 4", "free_for_all", "hitandsunk", 4, 1, []int{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.game, c.n)
			id := f.battle(t, c.format, c.game, c.perPair)
			waves := f.play(t, id, byBotID)
			if c.waves != nil && fmt.Sprint(waves) != fmt.Sprint(c.waves) {
				t.Errorf("games per wave %v, want %v", waves, c.waves)
			}
			pos := f.finalPositions(t, id)
			// Each entrant's owner hears of the end once, with their
			// bots' positions.
			var events, owners, placed int
			if err := f.st.DB().QueryRow(f.ctx, `
				SELECT (SELECT count(*) FROM notify_events WHERE type = 'battle.finished' AND (data->>'battle_id')::bigint = $1),
				       (SELECT count(DISTINCT user_id) FROM battle_entries WHERE battle_id = $1),
				       (SELECT count(*) FROM notify_events e, jsonb_array_elements(e.data->'entries') x
				        WHERE e.type = 'battle.finished' AND (e.data->>'battle_id')::bigint = $1 AND x ? 'position')`, id).
				Scan(&events, &owners, &placed); err != nil {
				t.Fatal(err)
			}
			if events != owners || placed != c.n {
				t.Errorf("battle.finished events %d for %d owners, %d entries placed of %d", events, owners, placed, c.n)
			}
			if pos[f.bots[0]] != 1 {
				t.Errorf("final positions %v: the best bot should be 1st", pos)
			}
			switch c.format {
			case "double_elimination":
				// Only the best bot beats the second best, who loses to no one else.
				if pos[f.bots[1]] != 2 {
					t.Errorf("final positions %v: the second best bot should be 2nd", pos)
				}
			case "swiss":
				// Three rounds do not sort seven entrants; every position is taken once.
				seen := map[int]bool{}
				for _, p := range pos {
					seen[p] = true
				}
				if len(seen) != c.n {
					t.Errorf("swiss positions %v are not distinct", pos)
				}
				f.noRematches(t, id)
			default:
				for i, b := range f.bots {
					if pos[b] != i+1 {
						t.Errorf("bot %d (entry %d) placed %d", b, i, pos[b])
					}
				}
			}
		})
	}
}

// noRematches fails when two entrants met twice (Swiss pairing rule).
func (f *fixture) noRematches(t *testing.T, id int64) {
	t.Helper()
	games, err := f.st.BattleGames(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	met := map[[2]int64]bool{}
	for _, g := range games {
		a, b := min(g.BotIDs[0], g.BotIDs[1]), max(g.BotIDs[0], g.BotIDs[1])
		if met[[2]int64{a, b}] {
			t.Errorf("bots %d and %d met twice", a, b)
		}
		met[[2]int64{a, b}] = true
	}
}

// TestBattleTooFewEntrantsIsCanceled: at its start time a battle with
// fewer than two playable entrants is canceled, and nothing is played.
func TestBattleTooFewEntrantsIsCanceled(t *testing.T) {
	f := newFixture(t, "entelect", 2)
	id := f.battle(t, "round_robin", "entelect", 1)
	if err := f.st.BotSetDisabled(f.ctx, f.bots[1], true); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.StartDueBattles(f.ctx); err != nil {
		t.Fatal(err)
	}
	b, err := f.st.BattleGetByID(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	games, err := f.st.BattleGames(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != "canceled" || len(games) != 0 {
		t.Errorf("battle %s with %d games, want canceled with none", b.Status, len(games))
	}
}

// TestFreeForAllBattleIsFull: a Hit and Sunk battle takes no more
// entrants than one game seats (the rule set's MaxShips).
func TestFreeForAllBattleIsFull(t *testing.T) {
	f := newFixture(t, "hitandsunk", 31)
	id, err := f.st.BattleCreate(f.ctx, store.BattleCreateParams{
		Name: "melee", OrganiserID: f.org, Format: "free_for_all", Game: "hitandsunk", GamesPerPairing: 1,
		StartAt: time.Now().Add(2 * time.Hour), EntryDeadline: time.Now().Add(time.Hour), Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range f.bots {
		bot, err := f.st.BotGetByID(f.ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		err = f.svc.EnterBattle(f.ctx, bot.OwnerID, id, b)
		switch {
		case i < 30 && err != nil:
			t.Fatalf("entrant %d refused: %v", i+1, err)
		case i == 30 && (!competition.IsRefusal(err) || !strings.Contains(err.Error(), "full")):
			t.Fatalf("the 31st entrant: %v, want a refusal: full", err)
		}
	}
}

// TestHouseBotsInBattles: an organiser enters a house bot in a battle, as
// the house's entry, and withdraws it; a contestant can do neither.
func TestHouseBotsInBattles(t *testing.T) {
	f := newFixture(t, "entelect", 2)
	house := f.bots[0]
	if err := f.st.BotSetHouse(f.ctx, house, true); err != nil {
		t.Fatal(err)
	}
	contestant, err := f.st.BotGetByID(f.ctx, f.bots[1])
	if err != nil {
		t.Fatal(err)
	}
	id, err := f.st.BattleCreate(f.ctx, store.BattleCreateParams{
		Name: "open", OrganiserID: f.org, Format: "round_robin", Game: "entelect", MapSize: 1, GamesPerPairing: 1,
		StartAt: time.Now().Add(2 * time.Hour), EntryDeadline: time.Now().Add(time.Hour), Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.EnterBattle(f.ctx, contestant.OwnerID, id, house); !competition.IsRefusal(err) ||
		!strings.Contains(err.Error(), "Only organisers can enter house bots") {
		t.Fatalf("a contestant entering a house bot: %v", err)
	}
	if err := f.svc.EnterBattle(f.ctx, f.org, id, house); err != nil {
		t.Fatalf("an organiser entering a house bot: %v", err)
	}
	entries, err := f.st.BattleEntries(f.ctx, id)
	if err != nil || len(entries) != 1 || entries[0].BotID != house || entries[0].Username != "player0" {
		t.Fatalf("entries %+v (%v), want the house bot entered as its owner's", entries, err)
	}
	if err := f.svc.WithdrawBattle(f.ctx, contestant.OwnerID, id, house); !competition.IsRefusal(err) {
		t.Fatalf("a contestant withdrawing a house bot: %v", err)
	}
	if err := f.svc.WithdrawBattle(f.ctx, f.org, id, house); err != nil {
		t.Fatalf("an organiser withdrawing a house bot: %v", err)
	}
}
