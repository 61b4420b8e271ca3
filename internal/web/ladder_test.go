package web_test

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
)

// TestLadderQueueShown: the leaderboard shows the ladder's queue depth and
// a bot's page its next ladder game (issue 4, item 4).
func TestLadderQueueShown(t *testing.T) {
	b := setup(t, nil)
	ann, ben, cat := b.browser(t), b.browser(t), b.browser(t)
	ann.register("ann")
	ben.register("ben")
	cat.register("cat")
	annBot, annVersion := b.builtBot(t, b.userID(t, "ann"), "Pyro")
	benBot, benVersion := b.builtBot(t, b.userID(t, "ben"), "Gopher")
	catBot, _ := b.builtBot(t, b.userID(t, "cat"), "Kitty")
	// The pages show the queue the matchmaker saved; a tick with no free
	// slot only saves it.
	svc := competition.New(b.st, b.queue, slog.New(slog.DiscardHandler))
	tick := func() {
		t.Helper()
		if _, err := svc.LadderTick(b.ctx, "entelect", 0, rand.New(rand.NewPCG(1, 1))); err != nil {
			t.Fatal(err)
		}
	}
	if res := ann.get(fmt.Sprintf("/bots/%d", catBot)); !strings.Contains(res.body, "New on the ladder: the matchmaker pairs it at its next run") {
		t.Errorf("a new bot's page before any tick does not say it is about to be matched")
	}
	tick()

	if res := ann.get("/leaderboard"); !strings.Contains(res.body, "Ladder queue: 3 bot(s) waiting for a game, 0 ladder match(es)") {
		t.Errorf("leaderboard lacks the queue depth:\n%s", res.body)
	}
	if res := ann.get(fmt.Sprintf("/bots/%d", catBot)); !strings.Contains(res.body, "of 3 in the queue") ||
		!strings.Contains(res.body, "Placement matches left: 5") {
		t.Errorf("bot page lacks its place in the queue")
	}

	m, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{
		Game: "entelect", MapSize: 1, Seed: 1, Kind: "placement", Ranked: true,
		Players: []store.MatchPlayerParams{{BotID: annBot, BotVersionID: annVersion}, {BotID: benBot, BotVersionID: benVersion}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tick()
	if res := ann.get("/leaderboard"); !strings.Contains(res.body, "Ladder queue: 1 bot(s) waiting for a game, 1 ladder match(es)") {
		t.Errorf("leaderboard queue after a match was queued is wrong")
	}
	if res := ann.get(fmt.Sprintf("/bots/%d", annBot)); !strings.Contains(res.body, fmt.Sprintf("match #%d</a> is queued, waiting for a worker", m.ID)) ||
		!strings.Contains(res.body, "Placement matches left: 4") {
		t.Errorf("bot page does not link its queued ladder match with the placement games after it")
	}
	if _, err := b.st.MatchStart(b.ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if res := ann.get(fmt.Sprintf("/bots/%d", annBot)); !strings.Contains(res.body, fmt.Sprintf("Playing now: <a href=\"/matches/%d\">", m.ID)) {
		t.Errorf("bot page does not say its ladder match is being played")
	}
	if res := ann.get(fmt.Sprintf("/bots/%d", catBot)); !strings.Contains(res.body, "1st of 1 in the queue") {
		t.Errorf("bot page of the only waiting bot does not say it is next")
	}
	if err := b.st.BotSetDisabled(b.ctx, catBot, true); err != nil {
		t.Fatal(err)
	}
	if res := ann.get(fmt.Sprintf("/bots/%d", catBot)); !strings.Contains(res.body, "Not on the ladder") {
		t.Errorf("disabled bot's page does not say it is off the ladder")
	}
}
