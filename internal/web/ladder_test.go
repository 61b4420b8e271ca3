package web_test

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game/rulesets"
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
	svc := competition.New(b.st, b.queue, slog.New(slog.DiscardHandler), rulesets.Registry())
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

	if res := ann.get("/leaderboard"); !strings.Contains(res.body, "Ladder queue: 3 bots waiting for a game, 0 ladder matches") {
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
	if res := ann.get("/leaderboard"); !strings.Contains(res.body, "Ladder queue: 1 bot waiting for a game, 1 ladder match") {
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

// ladderLine returns the text of a bot page's ladder line.
func ladderLine(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<p class="ladder-next"[^>]*>(.*?)</p>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("bot page has no ladder line:\n%s", body)
	}
	return m[1]
}

// TestBotLadderResting: a bot out of the queue is told apart as between
// games or done for the day, with its games of the day.
func TestBotLadderResting(t *testing.T) {
	b := setup(t, nil)
	ann := b.browser(t)
	ann.register("ann")
	b.browser(t).register("ben")
	annBot, annVersion := b.builtBot(t, b.userID(t, "ann"), "Pyro")
	benBot, benVersion := b.builtBot(t, b.userID(t, "ben"), "Gopher")
	// The matchmaker ran after both builds: neither is new.
	if err := b.st.PeriodicRegister(b.ctx, competition.LadderTickJob, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := b.st.PeriodicStarted(b.ctx, competition.LadderTickJob); err != nil {
		t.Fatal(err)
	}
	m, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{
		Game: "entelect", MapSize: 1, Seed: 1, Kind: "ladder", Ranked: true,
		Players: []store.MatchPlayerParams{{BotID: annBot, BotVersionID: annVersion}, {BotID: benBot, BotVersionID: benVersion}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.MatchCancel(b.ctx, m.ID); err != nil {
		t.Fatal(err)
	}

	line := ladderLine(t, ann.get(fmt.Sprintf("/bots/%d", annBot)).body)
	if !strings.Contains(line, "Between ladder games (1 of 48 today): the matchmaker pairs it again at its next run in about ") ||
		strings.Contains(line, "limit") || strings.Contains(line, " .") {
		t.Errorf("ladder line of a bot between games: %q", line)
	}

	if _, err := b.st.DB().Exec(b.ctx, `UPDATE ladder_day_games SET games = 48 WHERE bot_id = $1`, annBot); err != nil {
		t.Fatal(err)
	}
	line = ladderLine(t, ann.get(fmt.Sprintf("/bots/%d", annBot)).body)
	if !regexp.MustCompile(`^Done for today: it has played 48 of its 48 ladder games of the day; the count restarts at midnight UTC, in about (\d+ h \d+ min|\d+ min|\d+ seconds)\.`).MatchString(strings.TrimSpace(line)) {
		t.Errorf("ladder line of a bot at the day's limit: %q", line)
	}
}
