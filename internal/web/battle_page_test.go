package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/store"
)

// TestBattlePage: an organiser enters a house bot from the battle page;
// the page lists its settings and, once a game is played, each game's
// players with their owners and its winner.
func TestBattlePage(t *testing.T) {
	b := setup(t, nil)
	org := b.organiser(t)
	ann := b.browser(t)
	ann.register("ann")
	annBot, _ := b.builtBot(t, b.userID(t, "ann"), "Pyro")
	house, err := b.st.UserEnsure(b.ctx, "house")
	if err != nil {
		t.Fatal(err)
	}
	houseBot, _ := b.builtBot(t, house.ID, "entelect-python3")
	if err := b.st.BotSetHouse(b.ctx, houseBot, true); err != nil {
		t.Fatal(err)
	}
	form := battleForm("Cup")
	form.Set("games_per_pairing", "1")
	id := createBattle(t, org, form)
	path := fmt.Sprintf("/battles/%d", id)
	if res := org.get(path); !strings.Contains(res.body, `<optgroup label="House bots (as an organiser)">`) ||
		!strings.Contains(res.body, fmt.Sprintf(`<option value="%d">entelect-python3 (house bot)</option>`, houseBot)) {
		t.Fatalf("the organiser is not offered the house bot:\n%s", res.body)
	}
	if res := ann.get(path); strings.Contains(res.body, "House bots") {
		t.Errorf("a contestant is offered the house bots")
	}
	for _, res := range []response{battleAct(ann, id, "enter", annBot), battleAct(org, id, "enter", houseBot), battleAct(org, id, "start", 0)} {
		if res.status != http.StatusSeeOther {
			t.Fatalf("enter or start: status %d: %s", res.status, res.body)
		}
	}
	b.finishDuel(t, b.queue.matchIDs()[0], annBot)
	res := ann.get(path)
	for _, want := range []string{`<dl class="facts">`, "Entelect (map size 2)", "1 game per pairing",
		"<th scope=\"col\">Players</th>", "<th scope=\"col\">Winner</th>", `(house bot)</span>`, "<td>Pyro (ann)</td>"} {
		if !strings.Contains(res.body, want) {
			t.Errorf("the battle page lacks %q", want)
		}
	}
}

// finishDuel records a two-player Entelect match as won by the bot
// winner, in whichever seat the schedule put it.
func (b *testBundle) finishDuel(t *testing.T, match, winner int64) {
	t.Helper()
	m, err := b.st.MatchDetailGet(b.ctx, match)
	if err != nil {
		t.Fatal(err)
	}
	results := []store.MatchPlayerResult{{Seat: 0, Key: "A", Points: 90, Outcome: "win", Rank: 1}, {Seat: 1, Key: "B", Points: 10, Outcome: "loss", Rank: 2}}
	if m.Players[0].BotID != winner {
		results[0].Outcome, results[0].Points, results[0].Rank = "loss", 10, 2
		results[1].Outcome, results[1].Points, results[1].Rank = "win", 90, 1
	}
	if err := b.st.MatchFinish(b.ctx, store.MatchFinishParams{ID: match, ReplayKey: "replays/x.zip", Summary: json.RawMessage(`{}`), Players: results}); err != nil {
		t.Fatal(err)
	}
}
