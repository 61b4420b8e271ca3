package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game/rulesets"
)

// hiddenBattle registers olga, an organiser, and ann, each with a built
// bot (Orca, Pyro), and has olga create "Secret cup": one game a pairing,
// results hidden.
func (b *testBundle) hiddenBattle(t *testing.T) (org, ann *browser, id, annBot, olgaBot int64) {
	t.Helper()
	org = b.organiser(t)
	ann = b.browser(t)
	ann.register("ann")
	annBot, _ = b.builtBot(t, b.userID(t, "ann"), "Pyro")
	olgaBot, _ = b.builtBot(t, b.userID(t, "olga"), "Orca")
	form := battleForm("Secret cup")
	form.Set("games_per_pairing", "1")
	form.Set("results_hidden", "1")
	return org, ann, createBattle(t, org, form), annBot, olgaBot
}

// TestAPIBattleHiddenResults: the API hides a battle's hidden results
// from contestants exactly where the battle page and match list do, and
// shows them after the release.
func TestAPIBattleHiddenResults(t *testing.T) {
	b := setup(t, nil)
	org, ann, id, annBot, olgaBot := b.hiddenBattle(t)
	annTok, orgTok := ann.apiToken("laptop"), org.apiToken("desk")
	path := fmt.Sprintf("/battles/%d", id)
	apiPath := "/api" + path
	for _, res := range []response{battleAct(ann, id, "enter", annBot), battleAct(org, id, "enter", olgaBot), battleAct(org, id, "start", 0)} {
		if res.status != http.StatusSeeOther {
			t.Fatalf("enter or start: status %d", res.status)
		}
	}
	match := b.queue.matchIDs()[0]
	b.finishDuel(t, match, annBot)
	svc := competition.New(b.st, b.queue, slog.New(slog.NewTextHandler(io.Discard, nil)), rulesets.Registry())
	if err := svc.AdvanceBattle(b.ctx, id); err != nil {
		t.Fatal(err)
	}
	if s := b.battleStatus(t, id); s != "finished" {
		t.Fatalf("battle is %s after its only game, want finished", s)
	}

	battle := func(t *testing.T, token string) map[string]any {
		t.Helper()
		status, out := b.api(t, "GET", apiPath, token, "", nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s: status %d: %v", apiPath, status, out)
		}
		return out
	}
	matchItem := func(t *testing.T, token string) map[string]any {
		t.Helper()
		_, items := b.apiList(t, fmt.Sprintf("/api/matches?bot=%d", annBot), token, "matches")
		if len(items) != 1 {
			t.Fatalf("ann's bot has %d matches, want 1", len(items))
		}
		return items[0]
	}
	// shown checks that the battle's and its game's results are all there.
	shown := func(t *testing.T, token string) {
		t.Helper()
		out := battle(t, token)
		standings, _ := out["standings"].([]any)
		if out["show_results"] != true || len(standings) != 2 || standings[0].(map[string]any)["bot_name"] != "Pyro" {
			t.Fatalf("standings %v", out)
		}
		if tb := fmt.Sprint(out["tie_breaks"]); tb != "[score head_to_head sonneborn_berger points seed]" {
			t.Fatalf("tie-breaks %s", tb)
		}
		for _, e := range out["entrants"].([]any) {
			e := e.(map[string]any)
			want := 2.0
			if int64(e["bot_id"].(float64)) == annBot {
				want = 1
			}
			if e["final_position"] != want {
				t.Fatalf("entrant %v, want final position %v", e, want)
			}
		}
		g := out["games"].([]any)[0].(map[string]any)
		if g["status"] != "finished" || g["url"] != fmt.Sprintf("/api/matches/%d", match) {
			t.Fatalf("game %v", g)
		}
		if it := matchItem(t, token); it["status"] != "finished" || it["winner"] != float64(annBot) {
			t.Fatalf("match list item %v", it)
		}
	}

	t.Run("hidden from contestants", func(t *testing.T) {
		out := battle(t, annTok)
		raw, _ := json.Marshal(out)
		if out["show_results"] != false || strings.Contains(string(raw), `"standings"`) || strings.Contains(string(raw), `"final_position":1`) {
			t.Fatalf("a contestant sees hidden results: %s", raw)
		}
		if res := ann.get(path); strings.Contains(res.body, "Standings") || strings.Contains(res.body, "Final positions") {
			t.Fatal("the battle page shows what the API hides")
		}
		g := out["games"].([]any)[0].(map[string]any)
		if g["status"] != "played" || g["url"] != nil || g["match_id"] != float64(match) {
			t.Fatalf("game %v", g)
		}
		for _, tok := range []string{annTok, ""} {
			if _, items := b.apiList(t, fmt.Sprintf("/api/matches?bot=%d", annBot), tok, "matches"); len(items) != 0 {
				t.Fatalf("the match list shows a hidden battle game: %v", items)
			}
		}
		if status, _ := b.api(t, "GET", fmt.Sprintf("/api/matches/%d", match), annTok, "", nil); status != http.StatusForbidden {
			t.Fatalf("GET the hidden game: status %d", status)
		}
	})
	t.Run("shown to organisers", func(t *testing.T) { shown(t, orgTok) })

	if res := org.post(path+"/release", url.Values{"csrf_token": {org.token(path)}}); res.status != http.StatusSeeOther {
		t.Fatalf("release: status %d", res.status)
	}
	t.Run("shown to everyone after release", func(t *testing.T) {
		shown(t, annTok)
		shown(t, "")
		if res := ann.get(path); !strings.Contains(res.body, "Standings") || !strings.Contains(res.body, "Final positions") {
			t.Fatal("the battle page hides what the API shows")
		}
	})

	t.Run("battle list", func(t *testing.T) {
		_, list := b.apiList(t, "/api/battles", "", "battles")
		if len(list) != 1 || list[0]["name"] != "Secret cup" || list[0]["status"] != "finished" ||
			list[0]["entries"] != 2.0 || list[0]["url"] != apiPath || list[0]["results_hidden"] != true || list[0]["released"] != true {
			t.Fatalf("battles %v", list)
		}
		if res := ann.get("/battles"); !strings.Contains(res.body, "Secret cup") {
			t.Fatal("the battles page does not list the battle")
		}
	})
	for _, p := range []string{"/api/battles/999999", "/api/battles/x"} {
		if status, out := b.api(t, "GET", p, "", "", nil); status != http.StatusNotFound {
			t.Errorf("GET %s: status %d %v", p, status, out)
		}
	}
}
