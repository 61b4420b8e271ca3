package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/testdb"
	"github.com/broadside/broadside/internal/web"
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

// TestDatabaseOutagePages takes the portal's database away for real (its
// connections go through a proxy the test cuts): every page and API answer
// that needs it says the site is briefly unavailable, with 503 and
// Retry-After, pages that do not need it still work, and everything comes
// back with the database.
func TestDatabaseOutagePages(t *testing.T) {
	t.Parallel()
	proxy := testdb.StartProxy(t, testdb.URL(t))
	pool, err := pgxpool.New(t.Context(), proxy.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	q := &recordingQueue{}
	b := startPortalOn(t, pool, nil, "mem://", nil, func(*pgxpool.Pool) web.Queue { return q })
	ann, visitor := b.browser(t), b.browser(t)
	ann.register("ann")
	bot, _ := b.builtBot(t, b.userID(t, "ann"), "Ahab")
	tok := ann.apiToken("laptop")
	needDB := []struct {
		who  *browser
		path string
	}{
		{visitor, "/"}, {visitor, "/matches"}, {visitor, fmt.Sprintf("/bots/%d", bot)}, {visitor, "/battles"},
		{visitor, "/clans"}, {ann, "/"}, {ann, "/account"}, {ann, "/bots/new"}, {ann, "/challenges"},
	}
	apis := []string{"/api/matches", fmt.Sprintf("/api/bots/%d", bot), "/api/me/bots"}
	for _, p := range needDB {
		if res := p.who.get(p.path); res.status != http.StatusOK {
			t.Fatalf("GET %s before the outage: %d", p.path, res.status)
		}
	}

	proxy.Cut()
	for _, p := range needDB {
		res := p.who.get(p.path)
		if res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") == "" ||
			!strings.Contains(res.body, "briefly unavailable") || !strings.Contains(res.body, `<main id="main">`) {
			t.Errorf("GET %s during the outage: %d, Retry-After %q, want 503 with the site's error page",
				p.path, res.status, res.header.Get("Retry-After"))
		}
	}
	for _, path := range apis {
		status, out := b.api(t, "GET", path, tok, "", nil)
		if status != http.StatusServiceUnavailable || !strings.Contains(fmt.Sprint(out["error"]), "briefly unavailable") {
			t.Errorf("GET %s during the outage: %d %v, want 503", path, status, out)
		}
	}
	// Pages without the database: the log-in form of a visitor.
	if res := visitor.get("/login"); res.status != http.StatusOK {
		t.Errorf("the log-in form during the outage: %d", res.status)
	}

	proxy.Restore()
	for _, p := range needDB {
		if res := p.who.get(p.path); res.status != http.StatusOK {
			t.Errorf("GET %s after the outage: %d", p.path, res.status)
		}
	}
}
