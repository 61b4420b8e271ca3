package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestGettingStarted: the way in is linked from the front page, the
// leaderboard and the upload form; each game's page has its rules, its
// manifest, the local command, the API and the upload; the documentation
// is served as pages whose links stay on the site.
func TestGettingStarted(t *testing.T) {
	b := setup(t, nil)
	visitor, ann := b.browser(t), b.browser(t)
	ann.register("ann")
	tests := []struct {
		name   string
		who    *browser
		path   string
		status int
		want   []string
	}{
		{"front page links every game", visitor, "/", 200, []string{`href="/play"`, `href="/play/entelect"`, `href="/play/brainjar"`,
			`href="/play/deepship"`, `href="/play/hitandsunk"`}},
		{"the index", visitor, "/play", 200, []string{"Getting started", "In Deep Ship", "Hit and Sunk", `href="/docs"`}},
		{"Entelect", visitor, "/play/entelect", 200, []string{`href="/docs/entelect"`, "bot.json", "&#34;BotType&#34;: &#34;Python3&#34;",
			"battleship -f --game entelect", "battleship view", `href="/docs/api"`, "Register to upload",
			`href="/register?next=%2Fbots%2Fnew%3Fgame%3Dentelect"`, "no Entelect starter kit yet"}},
		{"In Deep Ship takes entry.zon", ann, "/play/deepship", 200, []string{"3. The manifest: entry.zon", ".runnable = &#34;src/main.py&#34;",
			`href="/bots/new?game=deepship"`}},
		{"an unknown game", visitor, "/play/chess", 404, []string{"no game called"}},
		{"leaderboard links its game and explains ranking", visitor, "/leaderboard?game=brainjar", 200, []string{`href="/play/brainjar"`,
			"How ranking works", "± on every page is two deviations", "conservative rating", `href="/docs/competition#ratings"`}},
		{"upload form follows the game", ann, "/bots/new?game=deepship", 200, []string{"An In Deep Ship bot is a folder with <code>entry.zon</code>",
			`name="game" value="deepship"`, `href="/play/deepship"`}},
		{"upload form without a game", ann, "/bots/new", 200, []string{"Choose your bot", "<code>entry.zon</code> for In Deep Ship"}},
		{"docs index", visitor, "/docs", 200, []string{`href="/docs/entelect"`, `href="/docs/competition"`, `href="/docs/api"`}},
		{"a doc page", visitor, "/docs/competition", 200, []string{`<h2 id="ratings">Ratings</h2>`, "worker recompute-ratings"}},
		{"links between docs stay on the site", visitor, "/docs/starter-bots", 200, []string{`href="/docs/entelect"`,
			`href="/docs/battleship-command#time-limits"`, "<table>"}},
		{"an unknown doc", visitor, "/docs/nothing", 404, []string{"no documentation page"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.who.get(tc.path)
			if res.status != tc.status {
				t.Fatalf("GET %s: status %d, want %d", tc.path, res.status, tc.status)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.body, w) {
					t.Errorf("GET %s lacks %q", tc.path, w)
				}
			}
		})
	}
	// No doc page links into the repository: such links keep their text
	// only, as a visitor of the site has no repository.
	for _, name := range []string{"entelect", "brainjar", "deepship", "hitandsunk", "starter-bots", "competition", "api", "viewer",
		"battleship-command", "operations", "sandbox", "security"} {
		res := visitor.get("/docs/" + name)
		if res.status != http.StatusOK {
			t.Errorf("GET /docs/%s: status %d", name, res.status)
			continue
		}
		for _, bad := range []string{`.md"`, `href="../`, `href="bots/`, "raw HTML omitted"} {
			if strings.Contains(res.body, bad) {
				t.Errorf("/docs/%s holds %q", name, bad)
			}
		}
	}
}
