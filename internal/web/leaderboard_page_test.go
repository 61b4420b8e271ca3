package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/web"
)

// TestLeaderboardVisitorPage: a signed-out visitor's leaderboard is drawn
// and compressed once per interval and served as it is, gzipped or plain
// as the client asks; a signed-in user's page is drawn for them.
func TestLeaderboardVisitorPage(t *testing.T) {
	b := setupWith(t, nil, func(c *web.Config) { c.LeaderboardTTL = time.Hour })
	ann := b.browser(t)
	ann.register("ann")
	rate := func(name string) {
		t.Helper()
		bot, _ := b.builtBot(t, b.userID(t, "ann"), name)
		if err := b.st.RatingReplace(b.ctx, store.RatingState{BotID: bot, Ladder: "entelect", Rating: 1500,
			Deviation: 100, Volatility: 0.06, Games: 4, Wins: 2, Losses: 2}); err != nil {
			t.Fatal(err)
		}
	}
	rate("Pequod")

	res, body := rawGet(t, b.ctx, b.srv.URL+"/leaderboard")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "gzip" ||
		!strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("%s, Content-Encoding %q, Vary %q, Content-Type %q", res.Status, res.Header.Get("Content-Encoding"),
			res.Header.Get("Vary"), res.Header.Get("Content-Type"))
	}
	page := gunzip(t, body)
	if !strings.Contains(page, "Pequod") || !strings.Contains(page, "<!doctype html>") || strings.Contains(page, "csrf_token") {
		t.Fatalf("visitor's page:\n%s", page)
	}

	// Plain for a client that does not take gzip: the same page.
	req, _ := http.NewRequestWithContext(b.ctx, http.MethodGet, b.srv.URL+"/leaderboard", nil)
	req.Header.Set("Accept-Encoding", "identity")
	plain, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	plainBody, _ := io.ReadAll(plain.Body)
	plain.Body.Close()
	if plain.Header.Get("Content-Encoding") != "" || string(plainBody) != page {
		t.Errorf("plain page: Content-Encoding %q, same page %v", plain.Header.Get("Content-Encoding"), string(plainBody) == page)
	}

	// Within the interval visitors get the page as it was.
	rate("Rachel")
	if _, again := rawGet(t, b.ctx, b.srv.URL+"/leaderboard"); gunzip(t, again) != page {
		t.Error("a second visitor within the interval got another page")
	}
	// Another page of the table, or another game, is a page of its own.
	if _, other := rawGet(t, b.ctx, b.srv.URL+"/leaderboard?page=2"); strings.Contains(gunzip(t, other), "Pequod") {
		t.Error("page 2 is page 1")
	}
	// A signed-in user's page names them and carries their token.
	mine := ann.get("/leaderboard")
	if !strings.Contains(mine.body, ">ann</a>") || !strings.Contains(mine.body, "csrf_token") || !strings.Contains(mine.body, "Pequod") {
		t.Errorf("ann's page:\n%s", mine.body)
	}
}
