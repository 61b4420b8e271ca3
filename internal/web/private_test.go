package web_test

import (
	"fmt"
	"net/http"
	"testing"
)

// TestPrivateAnswersNotStored: every page and API answer that shows a
// user's own things (account, tokens, bots, build logs, match logs,
// challenges, the organisers' console) is sent with Cache-Control:
// no-store, so no browser or proxy keeps a copy for the next person at the
// same computer. Each page also carries the visitor's form token.
func TestPrivateAnswersNotStored(t *testing.T) {
	b := setup(t, nil)
	ann, ben := b.browser(t), b.browser(t)
	ann.register("ann")
	ben.register("ben")
	aBot, aVer := b.builtBot(t, b.userID(t, "ann"), "Ahab")
	bBot, bVer := b.builtBot(t, b.userID(t, "ben"), "Nemo")
	match := b.playedMatch(t, [2][2]int64{{aBot, aVer}, {bBot, bVer}})
	tok := ann.apiToken("laptop")
	org := b.organiser(t)

	pages := []struct {
		who  *browser
		path string
	}{
		{ann, "/account"}, {ann, "/challenges"}, {ann, "/bots/new"}, {ann, fmt.Sprintf("/bots/%d", aBot)},
		{ann, fmt.Sprintf("/bots/%d/history", aBot)}, {ann, fmt.Sprintf("/matches/%d", match)},
		{ann, fmt.Sprintf("/matches/%d/replay.zip", match)}, {ann, "/"}, {ann, "/leaderboard"},
		{org, "/admin/"}, {b.browser(t), "/login"}, {b.browser(t), "/register"},
	}
	for _, p := range pages {
		res := p.who.get(p.path)
		if res.status != http.StatusOK {
			t.Errorf("GET %s: status %d", p.path, res.status)
		}
		if got := res.header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("GET %s: Cache-Control %q, want no-store", p.path, got)
		}
	}
	for _, path := range []string{"/api/me/bots", fmt.Sprintf("/api/bots/%d", aBot), "/api/challenges",
		fmt.Sprintf("/api/matches/%d", match), "/api/matches"} {
		req, _ := http.NewRequest(http.MethodGet, b.srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: status %d, Cache-Control %q, want 200 and no-store", path, res.StatusCode, res.Header.Get("Cache-Control"))
		}
	}
	// Static files are the same for everyone and may be kept.
	if res := ann.get("/static/site.css"); res.header.Get("Cache-Control") != "public, max-age=3600" {
		t.Errorf("the stylesheet: Cache-Control %q", res.header.Get("Cache-Control"))
	}
}
