package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
)

// postDuel sends the bot page's duel form.
func (br *browser) postDuel(bot int64, form url.Values) response {
	br.t.Helper()
	form.Set("csrf_token", br.token(fmt.Sprintf("/bots/%d", bot)))
	return br.post(fmt.Sprintf("/bots/%d/duel", bot), form)
}

// TestDuelFromBotPage: the owner starts a duel on the bot page and lands
// on its page; the page's event stream follows each counted game to the
// verdict; a second duel waits for the first; only the owner has the form.
func TestDuelFromBotPage(t *testing.T) {
	b := setup(t, nil)
	ann, bob := b.browser(t), b.browser(t)
	ann.register("ann")
	bob.register("bob")
	pyro, _ := b.builtBot(t, b.userID(t, "ann"), "Pyro")
	orca, _ := b.builtBot(t, b.userID(t, "ann"), "Orca")
	b.builtBot(t, b.userID(t, "bob"), "Shark")

	page := ann.get(fmt.Sprintf("/bots/%d", pyro)).body
	if !strings.Contains(page, `<button type="submit">Start duel</button>`) || !strings.Contains(page, fmt.Sprintf(`value="%d:1" selected`, orca)) {
		t.Fatalf("ann's bot page lacks the duel form with Orca chosen:\n%s", page)
	}
	if strings.Contains(page, "Shark") {
		t.Error("the duel form offers bob's bot")
	}
	if strings.Contains(bob.get(fmt.Sprintf("/bots/%d", pyro)).body, "Start duel") {
		t.Error("bob sees the duel form on ann's bot")
	}
	if res := bob.postDuel(pyro, url.Values{"version": {"1"}, "opponent": {fmt.Sprintf("%d:1", orca)}, "max_games": {"4"}}); res.status != http.StatusForbidden {
		t.Errorf("bob's duel of ann's bot: status %d", res.status)
	}

	res := ann.postDuel(pyro, url.Values{"version": {"1"}, "opponent": {fmt.Sprintf("%d:1", orca)}, "max_games": {"4"}})
	var id int64
	if _, err := fmt.Sscanf(res.header.Get("Location"), "/duels/%d", &id); res.status != http.StatusSeeOther || err != nil {
		t.Fatalf("duel form: status %d, location %q", res.status, res.header.Get("Location"))
	}
	page = b.browser(t).get(fmt.Sprintf("/duels/%d", id)).body
	for _, want := range []string{fmt.Sprintf("Duel #%d", id), "Pyro version 1", "Orca version 1", "no verdict yet", `id="duel-games"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the duel page lacks %q", want)
		}
	}
	again := ann.postDuel(orca, url.Values{"version": {"1"}, "opponent": {fmt.Sprintf("%d:1", pyro)}, "max_games": {"4"}})
	if again.status != http.StatusConflict || !strings.Contains(again.body, "You already have a duel running") {
		t.Errorf("a second duel: status %d", again.status)
	}
	if list := ann.get("/duels").body; !strings.Contains(list, fmt.Sprintf(`href="/duels/%d"`, id)) {
		t.Error("/duels does not list the duel")
	}
	if status, out := b.api(t, "GET", "/api/matches?kind=duel", "", "", nil); status != http.StatusOK || len(out["matches"].([]any)) != 4 {
		t.Errorf("GET /api/matches?kind=duel: status %d, %d matches, want the 4 queued", status, len(out["matches"].([]any)))
	}

	stream := openStream(t, fmt.Sprintf("%s/duels/%d/events", b.srv.URL, id))
	if name, _ := stream.next(t); name != "update" {
		t.Fatalf("first event %q, want the duel as it stands", name)
	}
	// Pyro wins every game, as the worker would record it.
	games, err := b.st.DuelGames(b.ctx, id)
	if err != nil || len(games) != 4 {
		t.Fatalf("%d games (%v)", len(games), err)
	}
	if page := b.browser(t).get(fmt.Sprintf("/matches/%d", games[1].MatchID)).body; !strings.Contains(page, fmt.Sprintf(`Game 2 of <a href="/duels/%d">duel #%d</a>`, id, id)) {
		t.Error("a duel game's match page does not link its duel")
	}
	for _, g := range games {
		seatA := g.Index % 2
		res := make([]store.MatchPlayerResult, 2)
		res[seatA] = store.MatchPlayerResult{Seat: seatA, Key: "AB"[seatA : seatA+1], Outcome: "win"}
		res[1-seatA] = store.MatchPlayerResult{Seat: 1 - seatA, Key: "AB"[1-seatA : 2-seatA], Outcome: "loss"}
		err := b.st.InTx(b.ctx, func(tx pgx.Tx, st *store.Store) error {
			if err := st.MatchFinish(b.ctx, store.MatchFinishParams{ID: g.MatchID, Summary: json.RawMessage(`{}`), Players: res}); err != nil {
				return err
			}
			_, err := competition.AdvanceDuel(b.ctx, tx, b.queue, g.MatchID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var last string
	for i := 0; i < 8; i++ {
		name, data := stream.next(t)
		if name == "end" {
			last = data
			break
		}
	}
	var end struct{ Status, HTML string }
	if err := json.Unmarshal([]byte(last), &end); err != nil {
		t.Fatalf("no end event: %q", last)
	}
	if end.Status != store.DuelFinished || !strings.Contains(end.HTML, `<strong id="duel-verdict">undecided</strong>`) ||
		!strings.Contains(end.HTML, "4 games counted: A won 4, B won 0") {
		t.Errorf("end event: %+v", end)
	}
}

// TestDuelGameCanceledByOrganiser: an organiser who cancels a game of a
// running duel from the console ends the duel, with the reason, so its
// owner may start another.
func TestDuelGameCanceledByOrganiser(t *testing.T) {
	b := setup(t, nil)
	ann := b.browser(t)
	ann.register("ann")
	pyro, _ := b.builtBot(t, b.userID(t, "ann"), "Pyro")
	orca, _ := b.builtBot(t, b.userID(t, "ann"), "Orca")
	res := ann.postDuel(pyro, url.Values{"version": {"1"}, "opponent": {fmt.Sprintf("%d:1", orca)}, "max_games": {"4"}})
	var id int64
	if _, err := fmt.Sscanf(res.header.Get("Location"), "/duels/%d", &id); err != nil {
		t.Fatalf("duel form: status %d, location %q", res.status, res.header.Get("Location"))
	}
	games, err := b.st.DuelGames(b.ctx, id)
	if err != nil || len(games) == 0 {
		t.Fatalf("%d games (%v)", len(games), err)
	}
	org := b.organiser(t)
	form := url.Values{"csrf_token": {org.token("/admin")}}
	if res := org.post(fmt.Sprintf("/admin/matches/%d/cancel", games[0].MatchID), form); res.status != http.StatusSeeOther {
		t.Fatalf("cancel: status %d\n%s", res.status, res.body)
	}
	d, err := b.st.DuelGetByID(b.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != store.DuelFailed || !strings.Contains(d.Error, "was canceled") {
		t.Errorf("the duel after its game was canceled: %s %q", d.Status, d.Error)
	}
	again := ann.postDuel(orca, url.Values{"version": {"1"}, "opponent": {fmt.Sprintf("%d:1", pyro)}, "max_games": {"4"}})
	if again.status != http.StatusSeeOther {
		t.Errorf("a new duel after the first ended: status %d\n%s", again.status, again.body)
	}
}
