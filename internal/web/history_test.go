package web_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/store"
)

// rate records a ranked match's rating changes as the worker would.
func rate(t *testing.T, b *testBundle, matchID int64, changes map[int64][2]float64, outcomes map[int64]string) {
	t.Helper()
	var ids []int64
	for id := range changes {
		ids = append(ids, id)
	}
	start := store.RatingState{Rating: 1500, Deviation: 350, Volatility: 0.06}
	if _, err := b.st.RatingsLock(b.ctx, "entelect", ids, start); err != nil {
		t.Fatal(err)
	}
	var cs []store.RatingChange
	for id, c := range changes {
		cs = append(cs, store.RatingChange{BotID: id, Outcomes: []string{outcomes[id]},
			Before: store.RatingState{Rating: c[0], Deviation: 300, Volatility: 0.06},
			After:  store.RatingState{Rating: c[1], Deviation: 250, Volatility: 0.06}})
	}
	if err := b.st.RatingApply(b.ctx, matchID, "entelect", "glicko2", cs); err != nil {
		t.Fatal(err)
	}
}

func TestHistory(t *testing.T) {
	b := setup(t, nil)
	alice, visitor := b.browser(t), b.browser(t)
	alice.register("alice")
	b.browser(t).register("bob")
	aBot, aVer := b.builtBot(t, b.userID(t, "alice"), "Ahab")
	bBot, bVer := b.builtBot(t, b.userID(t, "bob"), "Nemo")
	if res := alice.post("/clans", url.Values{"name": {"Pequod"}, "csrf_token": {"-"}}); res.status != 303 {
		t.Fatalf("create clan: %d", res.status)
	}
	clanID := b.clanOf(t, "alice").ID

	var ids []int64
	for i, o := range []string{"win", "win", "loss"} {
		m, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: int64(i), Kind: "ladder", Ranked: true,
			Players: []store.MatchPlayerParams{{BotID: aBot, BotVersionID: aVer}, {BotID: bBot, BotVersionID: bVer}}})
		if err != nil {
			t.Fatal(err)
		}
		other := map[string]string{"win": "loss", "loss": "win"}[o]
		finish(t, b, m.ID, o, other)
		before := 1500 + 40*float64(i)
		delta := map[string]float64{"win": 40, "loss": -23}[o]
		rate(t, b, m.ID, map[int64][2]float64{aBot: {before, before + delta}, bBot: {1500, 1500 - delta}},
			map[int64]string{aBot: o, bBot: other})
		ids = append(ids, m.ID)
	}
	unranked, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: 9, Kind: "challenge",
		Players: []store.MatchPlayerParams{{BotID: bBot, BotVersionID: bVer}, {BotID: aBot, BotVersionID: aVer}}})
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, path string
		want       []string
	}{
		{"the bot page shows rating changes and the chart", fmt.Sprintf("/bots/%d", aBot), []string{
			"+40", "−23", `<polyline class="rating"`, "Rating over 3 rated matches, from 1500 to 1557",
			fmt.Sprintf(`href="/bots/%d/vs/%d"`, aBot, bBot), fmt.Sprintf("/bots/%d/history", aBot)}},
		{"the opponent's side", fmt.Sprintf("/bots/%d", bBot), []string{"−40", "+23"}},
		{"the full history lists every match, unranked ones without a change", fmt.Sprintf("/bots/%d/history", aBot), []string{
			fmt.Sprintf("#%d", ids[0]), fmt.Sprintf("#%d", unranked.ID), "queued", `<svg role="img"`}},
		{"head to head counts the finished matches", fmt.Sprintf("/bots/%d/vs/%d", aBot, bBot), []string{
			"Ahab (alice): 2 wins</strong>", "Nemo (bob): 1 win</strong>", "0 draws, in 3 finished matches", fmt.Sprintf("#%d", unranked.ID)}},
		{"head to head from the other side", fmt.Sprintf("/bots/%d/vs/%d", bBot, aBot), []string{"Nemo (bob): 1 win</strong>", "Ahab (alice): 2 wins</strong>"}},
		{"the clan page lists its members' bots and results", fmt.Sprintf("/clans/%d", clanID), []string{
			"alice", "Ahab", fmt.Sprintf("#%d", ids[2]), "+40", "−23"}},
		{"a bot page links its owner's clan", fmt.Sprintf("/bots/%d", aBot), []string{fmt.Sprintf(`of <a href="/clans/%d">Pequod</a>`, clanID)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := visitor.get(c.path)
			if res.status != 200 {
				t.Fatalf("GET %s: status %d", c.path, res.status)
			}
			for _, w := range c.want {
				if !strings.Contains(res.body, w) {
					t.Errorf("GET %s lacks %q", c.path, w)
				}
			}
		})
	}

	t.Run("bad head-to-head addresses", func(t *testing.T) {
		for path, status := range map[string]int{
			fmt.Sprintf("/bots/%d/vs/%d", aBot, aBot): 400,
			fmt.Sprintf("/bots/%d/vs/999999", aBot):   404,
			fmt.Sprintf("/bots/%d/vs/x", aBot):        404,
		} {
			if res := visitor.get(path); res.status != status {
				t.Errorf("GET %s: status %d, want %d", path, res.status, status)
			}
		}
	})
}
