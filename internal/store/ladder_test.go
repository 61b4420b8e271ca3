package store_test

import (
	"testing"

	"github.com/broadside/broadside/internal/store"
)

func TestLadderCandidates(t *testing.T) {
	b := setup(t)
	game := "ladder_" + t.Name() // a game of this test's own
	a, _ := b.builtBot(t, game)
	c, _ := b.builtBot(t, game)
	idle, _ := b.builtBot(t, game)
	if _, err := b.st.BotCreate(b.ctx, store.BotCreateParams{OwnerID: b.user(t), Name: "unbuilt", Game: game}); err != nil {
		t.Fatal(err)
	}
	p := store.MatchCreateParams{Game: game, Seed: 1, Kind: "ladder", Ranked: true, Players: []store.MatchPlayerParams{
		{BotID: a.ID, BotVersionID: *a.CurrentVersionID}, {BotID: c.ID, BotVersionID: *c.CurrentVersionID}}}
	done, err := b.st.MatchCreate(b.ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.MatchCancel(b.ctx, done.ID); err != nil {
		t.Fatal(err)
	}
	// Yesterday's finished match counts for the version, not for today.
	var old int64
	if err := b.st.DB().QueryRow(b.ctx, `
		INSERT INTO matches (game, seed, kind, ranked, status, created_at, finished_at)
		VALUES ($1, 2, 'ladder', true, 'finished', now() - interval '1 day', now() - interval '1 day') RETURNING id`,
		game).Scan(&old); err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.DB().Exec(b.ctx, `
		INSERT INTO match_players (match_id, seat, bot_id, bot_version_id) VALUES ($1, 0, $2, $3), ($1, 1, $4, $5)`,
		old, idle.ID, *idle.CurrentVersionID, c.ID, *c.CurrentVersionID); err != nil {
		t.Fatal(err)
	}
	for range 2 { // two more, still queued
		if _, err := b.st.MatchCreate(b.ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := b.st.LadderCandidates(b.ctx, game)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d candidates, want the 3 built bots", len(got))
	}
	byBot := map[int64]store.LadderCandidate{}
	for _, g := range got {
		byBot[g.BotID] = g
	}
	if g := byBot[a.ID]; !g.Busy || g.GamesToday != 3 || g.VersionGames != 2 || g.Rating != 1500 {
		t.Errorf("bot in matches: %+v (canceled matches count today but not for the version)", g)
	}
	if g := byBot[c.ID]; !g.Busy || g.GamesToday != 3 || g.VersionGames != 3 {
		t.Errorf("bot in matches today and yesterday: %+v", g)
	}
	if g := byBot[idle.ID]; g.Busy || g.GamesToday != 0 || g.VersionGames != 1 {
		t.Errorf("bot that played yesterday only: %+v", g)
	}
	if n, err := b.st.LadderPending(b.ctx, game); err != nil || n != 2 {
		t.Errorf("pending ladder matches: %d, %v; want the 2 queued", n, err)
	}
}
