package web_test

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/store"
)

var matchLinkPattern = regexp.MustCompile(`href="/matches/(\d+)"`)

// htmlMatchIDs are the matches a list page links to, in its order.
func htmlMatchIDs(t *testing.T, br *browser, path string) []int64 {
	t.Helper()
	res := br.get(path)
	if res.status != http.StatusOK {
		t.Fatalf("GET %s: status %d", path, res.status)
	}
	var ids []int64
	for _, m := range matchLinkPattern.FindAllStringSubmatch(res.body, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		ids = append(ids, id)
	}
	return ids
}

// apiList gets a list from the API and returns its items under key.
func (b *testBundle) apiList(t *testing.T, path, token, key string) (map[string]any, []map[string]any) {
	t.Helper()
	status, out := b.api(t, "GET", path, token, "", nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s: status %d: %v", path, status, out)
	}
	raw, _ := out[key].([]any)
	items := make([]map[string]any, len(raw))
	for i, it := range raw {
		items[i] = it.(map[string]any)
	}
	return out, items
}

func ids(items []map[string]any, key string) []int64 {
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = int64(it[key].(float64))
	}
	return out
}

func TestAPIMatches(t *testing.T) {
	b := setup(t, nil)
	visitor, annID, bots := b.annsFleet(t)
	ahab, av, nemo, nv, moby, mv := bots[0][0], bots[0][1], bots[1][0], bots[1][1], bots[2][0], bots[2][1]
	// 51 matches: a page of 50 and one more.
	played := b.playedMatch(t, [2][2]int64{{ahab, av}, {moby, mv}})
	for range 49 {
		if _, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: 1, Kind: "ladder",
			Players: []store.MatchPlayerParams{{BotID: ahab, BotVersionID: av}, {BotID: nemo, BotVersionID: nv}}}); err != nil {
			t.Fatal(err)
		}
	}
	bj := [][2]int64{b.gameBot(t, annID, "Jar", "brainjar"), b.gameBot(t, annID, "Pot", "brainjar")}
	brainjar := b.gameMatch(t, "brainjar", bj, []store.MatchPlayerResult{
		{Seat: 0, Key: "A", Points: 3, Outcome: "loss", Rank: 2}, {Seat: 1, Key: "B", Points: 5, Outcome: "win", Rank: 1}})

	t.Run("pages match the HTML list", func(t *testing.T) {
		out, first := b.apiList(t, "/api/matches", "", "matches")
		if got, want := ids(first, "id"), htmlMatchIDs(t, visitor, "/matches"); len(got) != 50 || !slices.Equal(got, want) {
			t.Fatalf("page 1: %d matches %v, the HTML page shows %v", len(got), got, want)
		}
		if ids(first, "id")[0] != brainjar || out["next"] != "/api/matches?page=2" {
			t.Fatalf("page 1 starts with %d (want the newest, %d), next %v", ids(first, "id")[0], brainjar, out["next"])
		}
		out, second := b.apiList(t, "/api/matches?page=2", "", "matches")
		if got, want := ids(second, "id"), htmlMatchIDs(t, visitor, "/matches?page=2"); !slices.Equal(got, []int64{played}) || !slices.Equal(got, want) {
			t.Fatalf("page 2: %v, want [%d] as the HTML page shows %v", got, played, want)
		}
		if out["next"] != nil {
			t.Fatalf("the last page has a next page: %v", out["next"])
		}
	})

	t.Run("a finished match's players and winner", func(t *testing.T) {
		_, items := b.apiList(t, fmt.Sprintf("/api/matches?bot=%d", moby), "", "matches")
		if got, want := ids(items, "id"), htmlMatchIDs(t, visitor, fmt.Sprintf("/matches?bot=%d", moby)); !slices.Equal(got, []int64{played}) || !slices.Equal(got, want) {
			t.Fatalf("Moby's matches %v, want [%d] as the HTML page shows %v", got, played, want)
		}
		m := items[0]
		players := m["players"].([]any)
		a, z := players[0].(map[string]any), players[1].(map[string]any)
		if m["status"] != "finished" || int64(m["winner"].(float64)) != ahab || m["url"] != fmt.Sprintf("/api/matches/%d", played) {
			t.Fatalf("match %v", m)
		}
		if a["bot_name"] != "Ahab" || a["points"] != 120.0 || a["outcome"] != "win" || a["version"] != 1.0 ||
			z["bot_name"] != "Moby" || z["outcome"] != "loss" || z["owner"] != "ann" {
			t.Fatalf("players %v", players)
		}
		if _, ok := a["log"]; ok {
			t.Fatal("match lists carry bot logs")
		}
	})

	t.Run("filter by game", func(t *testing.T) {
		_, items := b.apiList(t, "/api/matches?game=brainjar", "", "matches")
		if got := ids(items, "id"); !slices.Equal(got, []int64{brainjar}) {
			t.Fatalf("brainjar matches %v, want [%d]", got, brainjar)
		}
		if _, items := b.apiList(t, fmt.Sprintf("/api/matches?game=brainjar&bot=%d", ahab), "", "matches"); len(items) != 0 {
			t.Fatalf("Ahab has brainjar matches: %v", items)
		}
	})

	t.Run("the HTML list by game", func(t *testing.T) {
		if got := htmlMatchIDs(t, visitor, "/matches?game=brainjar"); !slices.Equal(got, []int64{brainjar}) {
			t.Fatalf("the brainjar tab lists %v, want [%d]", got, brainjar)
		}
		if got := htmlMatchIDs(t, visitor, "/matches?game=entelect"); len(got) != 50 || slices.Contains(got, brainjar) {
			t.Fatalf("the entelect tab lists %d matches, brainjar's among them: %v", len(got), slices.Contains(got, brainjar))
		}
		for path, wants := range map[string][]string{
			// The tab is marked, and the pager keeps the game.
			"/matches?game=entelect&page=2": {`<a href="/matches?game=entelect" aria-current="page">`, `href="?game=entelect&amp;page=1"`},
			// All games, with a column saying which.
			"/matches": {`<a href="/matches" aria-current="page">All games</a>`, "<td>BrainJar</td>"},
		} {
			body := visitor.get(path).body
			for _, want := range wants {
				if !strings.Contains(body, want) {
					t.Errorf("%s lacks %s", path, want)
				}
			}
		}
		if got := htmlMatchIDs(t, visitor, fmt.Sprintf("/matches?game=entelect&bot=%d&page=2", ahab)); len(got) != 0 {
			t.Fatalf("page 2 of Ahab's entelect matches: %v, want none (49 + 1 fit on page 1)", got)
		}
		if res := visitor.get("/matches?game=chess"); res.status != http.StatusNotFound {
			t.Fatalf("an unknown game: status %d", res.status)
		}
	})

	for _, c := range []struct {
		name, path string
		status     int
	}{
		{"unknown game", "/api/matches?game=chess", http.StatusNotFound},
		{"malformed bot", "/api/matches?bot=ahab", http.StatusBadRequest},
		{"unknown match", "/api/matches/999999", http.StatusNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			if status, out := b.api(t, "GET", c.path, "", "", nil); status != c.status || out["error"] == nil {
				t.Fatalf("status %d, want %d: %v", status, c.status, out)
			}
		})
	}
}

func TestAPIMyBots(t *testing.T) {
	b := setup(t, nil)
	ann, ben := b.browser(t), b.browser(t)
	ann.register("ann")
	ben.register("ben")
	annTok, benTok := ann.apiToken("laptop"), ben.apiToken("ci")
	pyro, _ := b.builtBot(t, b.userID(t, "ann"), "Pyro")
	b.builtBot(t, b.userID(t, "ann"), "Aqua")
	nemo, _ := b.builtBot(t, b.userID(t, "ben"), "Nemo")

	if status, out := b.api(t, "GET", "/api/me/bots", "", "", nil); status != http.StatusUnauthorized || out["error"] == nil {
		t.Fatalf("without a token: %d %v", status, out)
	}
	_, mine := b.apiList(t, "/api/me/bots", annTok, "bots")
	if len(mine) != 2 || mine[0]["name"] != "Aqua" || mine[1]["name"] != "Pyro" {
		t.Fatalf("ann's bots %v", mine)
	}
	// Each bot as its page shows it to its owner, build logs included.
	status, one := b.api(t, "GET", fmt.Sprintf("/api/bots/%d", pyro), annTok, "", nil)
	if status != http.StatusOK || fmt.Sprint(one) != fmt.Sprint(mine[1]) {
		t.Fatalf("/api/me/bots has %v, /api/bots/%d has %v", mine[1], pyro, one)
	}
	v := mine[1]["versions"].([]any)[0].(map[string]any)
	if v["build_status"] != "ok" || v["build_log"] != "secret build log of Pyro" {
		t.Fatalf("Pyro's version %v", v)
	}
	if res := ann.get(fmt.Sprintf("/bots/%d", pyro)); !regexp.MustCompile(`secret build log of Pyro`).MatchString(res.body) {
		t.Fatal("the bot page does not show its owner the build log the API shows")
	}
	_, his := b.apiList(t, "/api/me/bots", benTok, "bots")
	if got := ids(his, "id"); !slices.Equal(got, []int64{nemo}) {
		t.Fatalf("ben's bots %v, want [%d]", got, nemo)
	}
}
