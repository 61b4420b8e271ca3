package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// battleForm is a valid battle creation form; change fields to break it.
func battleForm(name string) url.Values {
	now := time.Now().UTC()
	return url.Values{
		"name": {name}, "game": {"entelect"}, "format": {"round_robin"}, "map_size": {"2"},
		"games_per_pairing": {"2"}, "swiss_rounds": {"0"},
		"entry_deadline": {now.Add(time.Hour).Format("2006-01-02T15:04")},
		"start_at":       {now.Add(2 * time.Hour).Format("2006-01-02T15:04")},
		"csrf_token":     {"-"},
	}
}

// organiser registers olga, an organiser, and returns her browser.
func (b *testBundle) organiser(t *testing.T) *browser {
	t.Helper()
	org := b.browser(t)
	org.register("olga")
	b.makeOrganiser(t, "olga")
	return org
}

// badBattleForm is a battle form with one field wrong and the message
// that refuses it.
type badBattleForm struct {
	name  string
	field string
	value string
	want  string
}

// badBattleForms are the refusals of the battle form, creating or editing.
func badBattleForms() []badBattleForm {
	past := time.Now().UTC().Add(-time.Hour).Format("2006-01-02T15:04")
	return []badBattleForm{
		{"deadline in the past", "entry_deadline", past, "entry deadline is in the past"},
		{"start before the deadline", "start_at", past, "cannot start before its entry deadline"},
		{"no name", "name", "  ", "Give the battle a name"},
		{"unknown format", "format", "knockout", "Choose a format"},
		{"Hit and Sunk is a free-for-all", "game", "hitandsunk", "free-for-alls of all entrants"},
		{"free-for-all needs Hit and Sunk", "format", "free_for_all", "Only Hit and Sunk battles"},
		{"no games", "games_per_pairing", "0", "between 1 and 99"},
		{"negative Swiss rounds", "swiss_rounds", "-1", "Swiss rounds must be between"},
		{"map size out of range", "map_size", "7", "map size"},
		{"malformed time", "start_at", "tomorrow", "must be a date and time"},
		{"unknown game", "game", "chess", "Choose one of the games"},
	}
}

func (b *testBundle) makeOrganiser(t *testing.T, name string) {
	t.Helper()
	if _, err := b.st.DB().Exec(b.ctx, `UPDATE users SET role = 'organiser' WHERE username = $1`, name); err != nil {
		t.Fatal(err)
	}
}

// createBattle creates a battle as the (organiser) browser and returns its id.
func createBattle(t *testing.T, br *browser, form url.Values) int64 {
	t.Helper()
	res := br.post("/battles/new", form)
	if res.status != http.StatusSeeOther {
		t.Fatalf("create battle: status %d: %s", res.status, res.body)
	}
	var id int64
	if _, err := fmt.Sscanf(res.header.Get("Location"), "/battles/%d", &id); err != nil {
		t.Fatalf("create battle went to %q", res.header.Get("Location"))
	}
	return id
}

// battleAct posts one action (enter, withdraw, start…) on battle id from
// its page; botID is left out when zero.
func battleAct(br *browser, id int64, action string, botID int64) response {
	br.t.Helper()
	path := fmt.Sprintf("/battles/%d", id)
	form := url.Values{"csrf_token": {br.token(path)}}
	if botID != 0 {
		form.Set("bot_id", fmt.Sprint(botID))
	}
	return br.post(path+"/"+action, form)
}

func (b *testBundle) battleStatus(t *testing.T, id int64) string {
	t.Helper()
	var s string
	if err := b.st.DB().QueryRow(b.ctx, `SELECT status FROM battles WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBattleAuthorization: only organisers create or change battles
// (issue 4, item 3 and the authorization tests).
func TestBattleAuthorization(t *testing.T) {
	b := setup(t, nil)
	org := b.organiser(t)
	ann := b.browser(t)
	ann.register("ann")

	if res := ann.get("/battles/new"); res.status != http.StatusForbidden {
		t.Errorf("non-organiser GET /battles/new: status %d", res.status)
	}
	if res := ann.post("/battles/new", battleForm("Ann's cup")); res.status != http.StatusForbidden ||
		!strings.Contains(res.body, "Only organisers") {
		t.Errorf("non-organiser create: status %d: %s", res.status, res.body)
	}
	if n := b.count(t, "battles"); n != 0 {
		t.Fatalf("a non-organiser created %d battles", n)
	}

	id := createBattle(t, org, battleForm("Spring cup"))
	for _, action := range []string{"start", "cancel", "release"} {
		path := fmt.Sprintf("/battles/%d/%s", id, action)
		if res := ann.post(path, url.Values{"csrf_token": {ann.token("/battles")}}); res.status != http.StatusForbidden {
			t.Errorf("non-organiser %s: status %d", action, res.status)
		}
	}
	if s := b.battleStatus(t, id); s != "open" {
		t.Errorf("battle status after refused actions: %s", s)
	}
	if n := b.count(t, "audit_log"); n != 1 {
		t.Errorf("audit log has %d entries, want 1 (the creation)", n)
	}
	visitor := b.browser(t)
	if res := visitor.get("/battles/new"); res.status != http.StatusSeeOther {
		t.Errorf("visitor GET /battles/new: status %d, want a redirect to log in", res.status)
	}
	if res := visitor.get(fmt.Sprintf("/battles/%d", id)); res.status != http.StatusOK || !strings.Contains(res.body, "Spring cup") ||
		!strings.Contains(res.body, "to enter a bot") {
		t.Errorf("visitor battle page: status %d", res.status)
	}
}

// TestBattleBadInput: a bad creation form gets a clear message and no
// battle is recorded (issue 4, bad input).
func TestBattleBadInput(t *testing.T) {
	b := setup(t, nil)
	org := b.organiser(t)
	for _, c := range badBattleForms() {
		form := battleForm("Cup")
		form.Set(c.field, c.value)
		res := org.post("/battles/new", form)
		if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, c.want) {
			t.Errorf("%s: status %d, want 422 with %q", c.name, res.status, c.want)
		}
	}
	if n := b.count(t, "battles"); n != 0 {
		t.Errorf("bad forms recorded %d battles", n)
	}
}

// TestBattleEntryAndStart: entries are checked, a battle with fewer than
// two entrants cannot start, and starting freezes versions and schedules
// every pairing's games (issue 4, item 3).
func TestBattleEntryAndStart(t *testing.T) {
	b := setup(t, nil)
	org := b.organiser(t)
	ann, ben := b.browser(t), b.browser(t)
	ann.register("ann")
	ben.register("ben")
	annBot, annVersion := b.builtBot(t, b.userID(t, "ann"), "Pyro")
	benBot, _ := b.builtBot(t, b.userID(t, "ben"), "Gopher")
	id := createBattle(t, org, battleForm("Spring cup"))
	path := fmt.Sprintf("/battles/%d", id)
	enter := func(br *browser, bot int64) response { return battleAct(br, id, "enter", bot) }

	if res := enter(ann, annBot); res.status != http.StatusSeeOther {
		t.Fatalf("ann enters: status %d: %s", res.status, res.body)
	}
	for name, c := range map[string]struct {
		br   *browser
		bot  int64
		want string
	}{
		"entered twice":     {ann, annBot, "already entered"},
		"someone else's":    {ben, annBot, "only enter your own bots"},
		"a bot that is not": {ben, 999999, "Choose one of your bots"},
	} {
		if res := enter(c.br, c.bot); res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, c.want) {
			t.Errorf("%s: status %d, want 422 with %q", name, res.status, c.want)
		}
	}

	res := org.post(path+"/start", url.Values{"csrf_token": {org.token(path)}})
	if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "needs at least 2") {
		t.Errorf("start with one entrant: status %d", res.status)
	}
	if s := b.battleStatus(t, id); s != "open" || len(b.queue.matchIDs()) != 0 {
		t.Fatalf("a refused start changed the battle: %s, %d matches", s, len(b.queue.matchIDs()))
	}

	if res := enter(ben, benBot); res.status != http.StatusSeeOther {
		t.Fatalf("ben enters: status %d", res.status)
	}
	if res := org.post(path+"/start", url.Values{"csrf_token": {org.token(path)}}); res.status != http.StatusSeeOther {
		t.Fatalf("start: status %d: %s", res.status, res.body)
	}
	if s := b.battleStatus(t, id); s != "running" {
		t.Fatalf("status after start: %s", s)
	}
	if got := len(b.queue.matchIDs()); got != 2 {
		t.Errorf("one pairing with 2 games per pairing queued %d matches", got)
	}
	var frozen int64
	if err := b.st.DB().QueryRow(b.ctx, `SELECT bot_version_id FROM battle_entries WHERE battle_id = $1 AND bot_id = $2`,
		id, annBot).Scan(&frozen); err != nil || frozen != annVersion {
		t.Errorf("ann's frozen version: %d (%v), want %d", frozen, err, annVersion)
	}
	// Seats alternate between the games of a pairing.
	var firstSeats []int64
	rows, err := b.st.DB().Query(b.ctx, `
		SELECT p.bot_id FROM battle_games g JOIN match_players p ON p.match_id = g.match_id AND p.seat = 0
		WHERE g.battle_id = $1 ORDER BY g.game_number`, id)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var bot int64
		if err := rows.Scan(&bot); err != nil {
			t.Fatal(err)
		}
		firstSeats = append(firstSeats, bot)
	}
	rows.Close()
	if len(firstSeats) != 2 || firstSeats[0] == firstSeats[1] {
		t.Errorf("first seats of the two games: %v, want alternating bots", firstSeats)
	}
	if res := enter(ann, annBot); res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "closed") {
		t.Errorf("entering a running battle: status %d", res.status)
	}
	if res := org.get(path); !strings.Contains(res.body, "running") || !strings.Contains(res.body, "Standings") {
		t.Errorf("battle page after start lacks status or standings")
	}
}

// TestBattleHiddenResults: a battle's hidden results stay hidden from
// everyone but organisers, on its page, its games' pages, replays and
// match lists, until the organiser releases them (issue 4, item 3).
func TestBattleHiddenResults(t *testing.T) {
	b := setup(t, nil)
	org, ann, id, annBot, olgaBot := b.hiddenBattle(t)
	path := fmt.Sprintf("/battles/%d", id)
	for _, c := range []struct {
		br  *browser
		bot int64
	}{{ann, annBot}, {org, olgaBot}} {
		if res := c.br.post(path+"/enter", url.Values{"bot_id": {fmt.Sprint(c.bot)}, "csrf_token": {c.br.token(path)}}); res.status != http.StatusSeeOther {
			t.Fatalf("enter: status %d", res.status)
		}
	}
	if res := org.post(path+"/start", url.Values{"csrf_token": {org.token(path)}}); res.status != http.StatusSeeOther {
		t.Fatalf("start: status %d", res.status)
	}
	ids := b.queue.matchIDs()
	if len(ids) != 1 {
		t.Fatalf("%d games queued, want 1", len(ids))
	}
	match := ids[0]
	if err := b.st.MatchFinish(b.ctx, store.MatchFinishParams{ID: match, ReplayKey: "replays/x.zip", Summary: json.RawMessage(`{}`),
		Players: []store.MatchPlayerResult{{Seat: 0, Key: "A", Points: 90, Outcome: "win"}, {Seat: 1, Key: "B", Points: 10, Outcome: "loss"}}}); err != nil {
		t.Fatal(err)
	}
	matchPath := fmt.Sprintf("/matches/%d", match)
	for _, p := range []string{matchPath, matchPath + "/replay.zip"} {
		if res := ann.get(p); res.status != http.StatusForbidden || !strings.Contains(res.body, "hidden until the organiser releases") {
			t.Errorf("contestant GET %s: status %d", p, res.status)
		}
	}
	// Who played the game is the result too: the lists leave it out.
	link := fmt.Sprintf(`href="/matches/%d"`, match)
	if res := ann.get("/matches"); strings.Contains(res.body, link) || strings.Contains(res.body, " won") {
		t.Errorf("match list shows a hidden battle game")
	}
	if res := ann.get(path); strings.Contains(res.body, "Standings") {
		t.Errorf("contestant sees the standings of a hidden battle")
	}
	h2h := fmt.Sprintf("/bots/%d/vs/%d", annBot, olgaBot)
	for _, p := range []string{fmt.Sprintf("/bots/%d", annBot), fmt.Sprintf("/bots/%d/history", annBot), h2h} {
		if res := ann.get(p); res.status != http.StatusOK || strings.Contains(res.body, link) || strings.Contains(res.body, "finished matches") {
			t.Errorf("%s lists the hidden battle game (status %d)", p, res.status)
		}
	}
	for _, p := range []string{"/matches", fmt.Sprintf("/bots/%d/history", annBot), h2h} {
		if res := org.get(p); !strings.Contains(res.body, link) {
			t.Errorf("organiser: %s does not list the hidden battle game", p)
		}
	}
	if res := org.get(matchPath); res.status != http.StatusOK {
		t.Errorf("organiser GET %s: status %d", matchPath, res.status)
	}
	if res := org.get(path); !strings.Contains(res.body, "Standings") {
		t.Errorf("organiser does not see the standings")
	}

	if res := org.post(path+"/release", url.Values{"csrf_token": {org.token(path)}}); res.status != http.StatusSeeOther {
		t.Fatalf("release: status %d", res.status)
	}
	if res := ann.get(matchPath); res.status != http.StatusOK {
		t.Errorf("contestant GET %s after release: status %d", matchPath, res.status)
	}
	if res := ann.get(path); !strings.Contains(res.body, "Standings") {
		t.Errorf("contestant does not see the standings after release")
	}
	if res := ann.get(fmt.Sprintf("/bots/%d/history", annBot)); !strings.Contains(res.body, link) {
		t.Errorf("bot history still hides the game after release")
	}
	if res := ann.get(h2h); !strings.Contains(res.body, link) || !strings.Contains(res.body, "in 1 finished match") {
		t.Errorf("head to head still hides the game after release")
	}
	if res := org.post(path+"/release", url.Values{"csrf_token": {org.token(path)}}); res.status != http.StatusUnprocessableEntity {
		t.Errorf("second release: status %d", res.status)
	}
}
