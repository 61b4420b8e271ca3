package competition_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/duel"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// countingQueue accepts every match and remembers them.
type countingQueue struct {
	mu      sync.Mutex
	matches []int64
}

func (q *countingQueue) EnqueueMatchTx(_ context.Context, _ pgx.Tx, id int64) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.matches = append(q.matches, id)
	return true, nil
}

type duelFixture struct {
	ctx  context.Context
	pool interface {
		Begin(context.Context) (pgx.Tx, error)
	}
	st    *store.Store
	svc   *competition.Service
	queue *countingQueue
	// ann owns Pyro (versions 1 and 2) and Orca; bob owns Shark; the
	// house owns Starter; Mole plays another game.
	ann, bob                         int64
	pyro, orca, shark, starter, mole int64
}

func newDuelFixture(t *testing.T) *duelFixture {
	t.Helper()
	t.Parallel()
	ctx := context.Background()
	pool := testdb.NewPool(t)
	st := store.New(pool)
	q := &countingQueue{}
	f := &duelFixture{ctx: ctx, pool: pool, st: st, queue: q,
		svc: competition.New(st, q, slog.New(slog.NewTextHandler(io.Discard, nil)), rulesets.Registry())}
	user := func(name string) int64 {
		u, err := st.UserEnsure(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return u.ID
	}
	version := func(owner int64, name, game string) int64 {
		res, err := st.UploadRecord(ctx, store.UploadParams{
			OwnerID: owner, Name: name, Game: game, Language: "Python3", BotType: "Python3",
			Manifest: json.RawMessage(`{}`), SourceSHA256: "00", SourceSize: 1, SourceKey: blob.SourceKey,
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.BotVersionFinishBuild(ctx, res.VersionID, store.BuildResult{OK: true, ArtifactKey: "a"}); err != nil {
			t.Fatal(err)
		}
		return res.BotID
	}
	f.ann, f.bob = user("ann"), user("bob")
	house := user("house")
	f.pyro = version(f.ann, "Pyro", "entelect")
	version(f.ann, "Pyro", "entelect")
	f.orca = version(f.ann, "Orca", "entelect")
	f.mole = version(f.ann, "Mole", "hitandsunk")
	f.shark = version(f.bob, "Shark", "entelect")
	f.starter = version(house, "Starter", "entelect")
	if err := st.BotSetHouse(ctx, f.starter, true); err != nil {
		t.Fatal(err)
	}
	return f
}

// play plays the duel's queued games in schedule order, as the worker
// does: each result and the duel's advance in one transaction. outcome
// says how a game ends for A; A's seat comes from the schedule. It
// returns the duel at its end.
func (f *duelFixture) play(t *testing.T, id int64, outcome func(g duel.Game) duel.Outcome) *store.Duel {
	t.Helper()
	d, err := f.st.DuelGetByID(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	sched := duel.Schedule(duel.Config{Games: d.MaxGames, Paired: true, Seed: d.MasterSeed})
	for round := 0; ; round++ {
		if round > d.MaxGames+1 {
			t.Fatal("the duel does not end")
		}
		games, err := f.st.DuelGames(f.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var next *store.DuelGame
		waiting := 0
		for i := range games {
			if games[i].Status == store.MatchQueued {
				waiting++
				if next == nil {
					next = &games[i]
				}
			}
		}
		if waiting > 4 {
			t.Fatalf("%d games of the duel wait at once, want at most 4", waiting)
		}
		if next == nil {
			break
		}
		g := sched[next.Index]
		if next.Seed != g.Seed {
			t.Fatalf("game %d has seed %d, the schedule %d", next.Index, next.Seed, g.Seed)
		}
		seatOutcome := map[duel.Outcome][2]string{duel.WinA: {"win", "loss"}, duel.WinB: {"loss", "win"}, duel.Draw: {"draw", "draw"}}[outcome(g)]
		res := make([]store.MatchPlayerResult, 2)
		for side := range 2 { // side 0 is A
			seat := g.SeatA
			if side == 1 {
				seat = 1 - g.SeatA
			}
			res[seat] = store.MatchPlayerResult{Seat: seat, Key: string(rune('A' + seat)), Outcome: seatOutcome[side]}
		}
		tx, err := f.pool.Begin(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.NewTx(tx).MatchFinish(f.ctx, store.MatchFinishParams{ID: next.MatchID, Summary: json.RawMessage(`{}`), Players: res}); err != nil {
			t.Fatal(err)
		}
		if _, err := competition.AdvanceDuel(f.ctx, tx, f.queue, next.MatchID); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
	if d, err = f.st.DuelGetByID(f.ctx, id); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDuelPlaysToVerdict: a duel on the portal stops after the games
// `battleship duel --paired` would count for the same outcomes, with its
// verdict, and queues nothing after it.
func TestDuelPlaysToVerdict(t *testing.T) {
	f := newDuelFixture(t)
	tests := []struct {
		name     string
		opponent int64
		version  int
		max      int
		outcome  func(duel.Game) duel.Outcome
		verdict  string
	}{
		{"A always wins", f.orca, 0, 40, func(duel.Game) duel.Outcome { return duel.WinA }, "A better"},
		{"B always wins", f.starter, 0, 40, func(duel.Game) duel.Outcome { return duel.WinB }, "B better"},
		{"the first seat always wins", f.pyro, 1, 40, func(g duel.Game) duel.Outcome {
			return [2]duel.Outcome{duel.WinA, duel.WinB}[g.SeatA]
		}, "undecided"},
		{"draws run out of games", f.orca, 0, 6, func(duel.Game) duel.Outcome { return duel.Draw }, "undecided"},
	}
	for _, tt := range tests {
		id, err := f.svc.StartDuel(f.ctx, competition.DuelParams{UserID: f.ann, BotID: f.pyro,
			OpponentBotID: tt.opponent, OpponentVersion: tt.version, MaxGames: tt.max})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		d := f.play(t, id, tt.outcome)
		// The in-process duel of the command, on the same schedule.
		want, err := duel.Run(f.ctx, duel.Config{Games: tt.max, Paired: true, Jobs: 1, Seed: d.MasterSeed, Test: duel.DefaultTest},
			func(_ context.Context, g duel.Game) (duel.Outcome, error) { return tt.outcome(g), nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := duel.Score{WinsA: d.WinsA, WinsB: d.WinsB, Draws: d.Draws}
		if d.Status != store.DuelFinished || d.Verdict != tt.verdict || d.Verdict != want.Decision.Verdict() || got != want.Score {
			t.Errorf("%s: %s %q after %+v; want %q after %+v as battleship duel counts", tt.name, d.Status, d.Verdict, got, tt.verdict, want.Score)
		}
		games, err := f.st.DuelGames(f.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range games {
			if g.Index >= got.Games() && g.Status != store.MatchCanceled {
				t.Errorf("%s: game %d after the verdict is %s, want canceled", tt.name, g.Index, g.Status)
			}
		}
		if len(games) > got.Games()+4 {
			t.Errorf("%s: %d games made for %d counted", tt.name, len(games), got.Games())
		}
		// The owner hears of the verdict once: a duel.finished event.
		var verdicts []string
		rows, err := f.st.DB().Query(f.ctx, `SELECT data->>'verdict' FROM notify_events
			WHERE user_id = $1 AND type = 'duel.finished' AND (data->>'duel_id')::bigint = $2`, f.ann, id)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			verdicts = append(verdicts, v)
		}
		rows.Close()
		if len(verdicts) != 1 || verdicts[0] != d.Verdict {
			t.Errorf("%s: duel.finished events with verdicts %q, want one with %q", tt.name, verdicts, d.Verdict)
		}
		var ranked int
		if err := f.st.DB().QueryRow(f.ctx, `SELECT count(*) FROM matches WHERE duel_id = $1 AND (ranked OR kind <> 'duel')`, id).Scan(&ranked); err != nil || ranked != 0 {
			t.Errorf("%s: %d ranked or non-duel games (%v)", tt.name, ranked, err)
		}
	}
	var events int
	if err := f.st.DB().QueryRow(f.ctx, `SELECT count(*) FROM rating_events`).Scan(&events); err != nil || events != 0 {
		t.Errorf("duels made %d rating events (%v)", events, err)
	}
}

// TestDuelOneRunningPerUser: a second duel waits for the first's verdict;
// another user's duel is theirs.
func TestDuelOneRunningPerUser(t *testing.T) {
	f := newDuelFixture(t)
	first, err := f.svc.StartDuel(f.ctx, competition.DuelParams{UserID: f.ann, BotID: f.pyro, OpponentBotID: f.orca, MaxGames: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.StartDuel(f.ctx, competition.DuelParams{UserID: f.ann, BotID: f.orca, OpponentBotID: f.starter})
	var ce *competition.Error
	if !errors.As(err, &ce) || ce.Kind != competition.Conflict {
		t.Fatalf("a second running duel: %v, want a conflict", err)
	}
	if _, err := f.svc.StartDuel(f.ctx, competition.DuelParams{UserID: f.bob, BotID: f.shark, OpponentBotID: f.starter}); err != nil {
		t.Fatalf("bob's duel beside ann's: %v", err)
	}
	f.play(t, first, func(duel.Game) duel.Outcome { return duel.WinA })
	if _, err := f.svc.StartDuel(f.ctx, competition.DuelParams{UserID: f.ann, BotID: f.orca, OpponentBotID: f.starter}); err != nil {
		t.Fatalf("a duel after the first's verdict: %v", err)
	}
}

func TestDuelRefusals(t *testing.T) {
	f := newDuelFixture(t)
	tests := []struct {
		name string
		p    competition.DuelParams
		kind competition.Kind
	}{
		{"another user's bot as A", competition.DuelParams{BotID: f.shark, OpponentBotID: f.starter}, competition.Forbidden},
		{"another user's bot as B", competition.DuelParams{BotID: f.pyro, OpponentBotID: f.shark}, competition.Forbidden},
		{"the same version", competition.DuelParams{BotID: f.pyro, Version: 2}, competition.Invalid},
		{"the playing version against itself", competition.DuelParams{BotID: f.pyro, OpponentVersion: 2}, competition.Invalid},
		{"another game", competition.DuelParams{BotID: f.pyro, OpponentBotID: f.mole}, competition.Invalid},
		{"an odd number of games", competition.DuelParams{BotID: f.pyro, OpponentBotID: f.orca, MaxGames: 5}, competition.Invalid},
		{"too many games", competition.DuelParams{BotID: f.pyro, OpponentBotID: f.orca, MaxGames: competition.DuelMaxGames + 2}, competition.Invalid},
		{"a version that does not exist", competition.DuelParams{BotID: f.pyro, Version: 9, OpponentBotID: f.orca}, competition.NotFound},
		{"an old version of a house bot", competition.DuelParams{BotID: f.pyro, OpponentBotID: f.starter, OpponentVersion: 1}, competition.Invalid},
		{"a bot that does not exist", competition.DuelParams{BotID: 999999}, competition.NotFound},
	}
	for _, tt := range tests {
		tt.p.UserID = f.ann
		_, err := f.svc.StartDuel(f.ctx, tt.p)
		var ce *competition.Error
		if !errors.As(err, &ce) || ce.Kind != tt.kind {
			t.Errorf("%s: %v, want a refusal of kind %d", tt.name, err, tt.kind)
		}
	}
	var n int
	if err := f.st.DB().QueryRow(f.ctx, `SELECT count(*) FROM duels`).Scan(&n); err != nil || n != 0 {
		t.Errorf("refused duels left %d rows (%v)", n, err)
	}
}

// TestDuelStopsAtAFailedGame: a game the platform could not play ends the
// duel as failed, with why, and cancels the games still waiting.
func TestDuelStopsAtAFailedGame(t *testing.T) {
	f := newDuelFixture(t)
	id, err := f.svc.StartDuel(f.ctx, competition.DuelParams{UserID: f.ann, BotID: f.pyro, OpponentBotID: f.starter})
	if err != nil {
		t.Fatal(err)
	}
	games, err := f.st.DuelGames(f.ctx, id)
	if err != nil || len(games) != 4 {
		t.Fatalf("%d games queued at the start (%v), want 4", len(games), err)
	}
	tx, err := f.pool.Begin(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.NewTx(tx).MatchFail(f.ctx, games[0].MatchID, store.FaultPlatform, "The sandbox broke."); err != nil {
		t.Fatal(err)
	}
	ended, err := competition.AdvanceDuel(f.ctx, tx, f.queue, games[0].MatchID)
	if err != nil || ended != id {
		t.Fatalf("AdvanceDuel: ended %d, %v; want the duel %d", ended, err, id)
	}
	if err := tx.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	d, err := f.st.DuelGetByID(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != store.DuelFailed || d.Verdict != "" || d.Error == "" || d.FinishedAt == nil {
		t.Errorf("duel after a failed game: %s %q %q", d.Status, d.Verdict, d.Error)
	}
	if games, _ = f.st.DuelGames(f.ctx, id); fmt.Sprint(statuses(games)) != "[failed canceled canceled canceled]" {
		t.Errorf("games after the failure: %v", statuses(games))
	}
}

func statuses(gs []store.DuelGame) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.Status)
	}
	return out
}
