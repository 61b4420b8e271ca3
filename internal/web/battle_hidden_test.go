package web_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/web"
)

// hiddenWorld is a portal running one hidden double-elimination battle
// whose games are decided by each entrant's strength.
type hiddenWorld struct {
	b      *testBundle
	svc    *competition.Service
	battle int64
	// strength decides every game: the stronger bot wins.
	strength map[int64]int
	// viewers by role: an anonymous visitor, a contestant with a bot
	// that is not entered, the owner of an entrant, and the organiser.
	viewers map[string]viewer
}

// viewer is one visitor: a browser for the pages, a token for the API
// ("" for none).
type viewer struct {
	br    *browser
	token string
}

// newHiddenWorld starts a portal of its own with six entrants in a hidden
// double-elimination battle; strengths[i] is the strength of the i-th
// entrant. Everything but the strengths is the same in every world, ids
// included.
func newHiddenWorld(t *testing.T, strengths []int) *hiddenWorld {
	t.Helper()
	q := &recordingQueue{}
	b := startPortal(t, nil, "mem://", nil, func(*pgxpool.Pool) web.Queue { return q })
	b.queue = q
	w := &hiddenWorld{b: b, strength: map[int64]int{}, viewers: map[string]viewer{}}
	w.svc = competition.New(b.st, q, slog.New(slog.NewTextHandler(io.Discard, nil)), rulesets.Registry())

	org := b.organiser(t)
	w.viewers["organiser"] = viewer{org, org.apiToken("desk")}
	w.viewers["anonymous"] = viewer{b.browser(t), ""}
	carl := b.browser(t)
	carl.register("carl")
	b.builtBot(t, b.userID(t, "carl"), "Carlsberg")
	w.viewers["contestant not entered"] = viewer{carl, carl.apiToken("laptop")}
	entrant := b.browser(t)
	entrant.register("ann")
	w.viewers["entrant's owner"] = viewer{entrant, entrant.apiToken("laptop")}

	form := battleForm("Secret bracket")
	form.Set("format", "double_elimination")
	form.Set("games_per_pairing", "1")
	form.Set("results_hidden", "1")
	w.battle = createBattle(t, org, form)
	for i, s := range strengths {
		owner := "ann"
		if i > 0 {
			owner = fmt.Sprintf("owner%d", i)
			if _, err := b.st.UserCreate(b.ctx, store.UserCreateParams{Username: owner, PasswordHash: "x"}); err != nil {
				t.Fatal(err)
			}
		}
		uid := b.userID(t, owner)
		bot, _ := b.builtBot(t, uid, fmt.Sprintf("Entrant%d", i+1))
		if err := w.svc.EnterBattle(b.ctx, uid, w.battle, bot); err != nil {
			t.Fatal(err)
		}
		w.strength[bot] = s
	}
	if res := battleAct(org, w.battle, "start", 0); res.status != http.StatusSeeOther {
		t.Fatalf("start: status %d", res.status)
	}
	return w
}

// queued returns the battle's games not played yet, oldest first.
func (w *hiddenWorld) queued(t *testing.T) []int64 {
	t.Helper()
	var out []int64
	for _, id := range w.b.queue.matchIDs() {
		m, err := w.b.st.MatchDetailGet(w.b.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Status == store.MatchQueued || m.Status == store.MatchRunning {
			out = append(out, id)
		}
	}
	return out
}

// start marks a game as being played, as the worker does.
func (w *hiddenWorld) start(t *testing.T, id int64) {
	t.Helper()
	if _, err := w.b.st.MatchStart(w.b.ctx, id); err != nil {
		t.Fatal(err)
	}
}

// finish records a game as the worker does, the stronger bot winning,
// and advances the battle.
func (w *hiddenWorld) finish(t *testing.T, id int64) {
	t.Helper()
	m, err := w.b.st.MatchDetailGet(w.b.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status == store.MatchQueued {
		w.start(t, id)
	}
	win := 0
	if w.strength[m.Players[1].BotID] > w.strength[m.Players[0].BotID] {
		win = 1
	}
	res := make([]store.MatchPlayerResult, 2)
	for seat := range res {
		res[seat] = store.MatchPlayerResult{Seat: seat, Key: string(rune('A' + seat)), Outcome: "loss", Points: 10, Rank: 2, Reason: "all ships sunk"}
		if seat == win {
			res[seat].Outcome, res[seat].Points, res[seat].Rank, res[seat].Reason = "win", 90, 1, ""
		}
	}
	summary, _ := json.Marshal(map[string]any{"winner": m.Players[win].BotName})
	if err := w.b.st.MatchFinish(w.b.ctx, store.MatchFinishParams{ID: id, ReplayKey: fmt.Sprintf("replays/%d.zip", id),
		Summary: summary, Players: res}); err != nil {
		t.Fatal(err)
	}
	if err := w.svc.AdvanceBattle(w.b.ctx, w.battle); err != nil {
		t.Fatal(err)
	}
}

// get fetches path as v: pages with its browser's cookies, the API with
// its token. Of an event stream, only the first event is read: a game
// being played streams until it ends.
func (v viewer) get(t *testing.T, path string) response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, v.br.base+path, nil)
	if v.token != "" && strings.HasPrefix(path, "/api/") {
		req.Header.Set("Authorization", "Bearer "+v.token)
	}
	res, err := v.br.c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	var body []byte
	if res.Header.Get("Content-Type") == "text/event-stream" {
		ev, err := bufio.NewReader(res.Body).ReadString('\n')
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		body = []byte(ev)
	} else if body, err = io.ReadAll(res.Body); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(body)}
}

// publicPaths lists every page and API answer an outsider can reach about
// the battle, from what the public battle answer names: its entrants and
// its games. Carl's bot, not entered, is listed too.
func (w *hiddenWorld) publicPaths(t *testing.T) []string {
	t.Helper()
	status, out := w.b.api(t, "GET", fmt.Sprintf("/api/battles/%d", w.battle), "", "", nil)
	if status != http.StatusOK {
		t.Fatalf("GET the battle: status %d", status)
	}
	bots := []int64{w.b.botID(t, "Carlsberg")}
	for _, e := range out["entrants"].([]any) {
		bots = append(bots, int64(e.(map[string]any)["bot_id"].(float64)))
	}
	paths := []string{"/", "/matches", "/leaderboard", "/battles", "/clans",
		fmt.Sprintf("/battles/%d", w.battle), "/api/matches", "/api/battles", fmt.Sprintf("/api/battles/%d", w.battle),
		"/api/leaderboard", "/api/me/bots", "/challenges"}
	for _, x := range bots {
		paths = append(paths, fmt.Sprintf("/bots/%d", x), fmt.Sprintf("/bots/%d/history", x),
			fmt.Sprintf("/matches?bot=%d", x), fmt.Sprintf("/api/bots/%d", x), fmt.Sprintf("/api/matches?bot=%d", x))
		for _, y := range bots {
			if x != y {
				paths = append(paths, fmt.Sprintf("/bots/%d/vs/%d", x, y))
			}
		}
	}
	for _, g := range out["games"].([]any) {
		m := int64(g.(map[string]any)["match_id"].(float64))
		paths = append(paths, fmt.Sprintf("/matches/%d", m), fmt.Sprintf("/api/matches/%d", m),
			fmt.Sprintf("/matches/%d/replay.zip", m), fmt.Sprintf("/matches/%d/events", m),
			fmt.Sprintf("/matches/%d/rounds/0", m))
	}
	return paths
}

// varying matches what differs between two portals whatever the results:
// form tokens and times.
var varying = regexp.MustCompile(`name="csrf_token" value="[^"]+"|"csrf":"[^"]+"|` +
	`\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?( UTC)?`)

// view is everything the viewer is shown at paths: status and body.
func (w *hiddenWorld) view(t *testing.T, who string, paths []string) map[string]string {
	t.Helper()
	v := w.viewers[who]
	out := map[string]string{}
	for _, p := range paths {
		res := v.get(t, p)
		out[p] = fmt.Sprintf("%d\n%s", res.status, varying.ReplaceAllString(res.body, "…"))
	}
	return out
}

// firstDifference names the first path whose answers differ, with the
// lines around the first difference; "" when the views are the same.
func firstDifference(a, b map[string]string) string {
	paths := make([]string, 0, len(a))
	for p := range a {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if a[p] == b[p] {
			continue
		}
		la, lb := strings.Split(a[p], "\n"), strings.Split(b[p], "\n")
		for i := range max(len(la), len(lb)) {
			if i >= len(la) || i >= len(lb) || la[i] != lb[i] {
				// Show the lines from a little before their first
				// differing character.
				from := 0
				if i < len(la) && i < len(lb) {
					for from < len(la[i]) && from < len(lb[i]) && la[i][from] == lb[i][from] {
						from++
					}
					from = max(0, from-80)
				}
				at := func(l []string) string {
					if i >= len(l) {
						return "(end)"
					}
					return l[i][min(from, len(l[i])):min(from+240, len(l[i]))]
				}
				return fmt.Sprintf("%s, line %d:\n  one world:   %s\n  other world: %s", p, i+1, at(la), at(lb))
			}
		}
	}
	return ""
}

// TestHiddenBattleOutsiderView plays the same hidden double-elimination
// battle twice on two portals, with opposite strengths (the top seed wins
// everything in one, the bottom seed in the other), and rebuilds what each
// kind of visitor is shown by the real server: every page and API answer
// that names the battle, its entrants or its games, match lists, "Playing
// now", bot pages, histories, head to head, replays and event streams.
// Anyone but an organiser must be shown exactly the same in both worlds,
// halfway through (one game being played) and at the end, so nothing they
// see depends on who beat whom or how far anyone went. The organiser's
// view, and everyone's after the release, must differ: the crawl does see
// results where they are shown.
func TestHiddenBattleOutsiderView(t *testing.T) {
	t.Parallel()
	worlds := []*hiddenWorld{
		newHiddenWorld(t, []int{6, 5, 4, 3, 2, 1}),
		newHiddenWorld(t, []int{1, 2, 3, 4, 5, 6}),
	}
	outsiders := []string{"anonymous", "contestant not entered", "entrant's owner"}
	compare := func(t *testing.T, stage string, wantSame []string, wantDiffer []string) {
		t.Helper()
		paths := worlds[0].publicPaths(t)
		if other := worlds[1].publicPaths(t); !slices.Equal(paths, other) {
			t.Fatalf("%s: the battle's public answer differs: %v vs %v", stage, paths, other)
		}
		for _, who := range wantSame {
			if d := firstDifference(worlds[0].view(t, who, paths), worlds[1].view(t, who, paths)); d != "" {
				t.Errorf("%s: the %s is shown something that depends on the hidden results: %s", stage, who, d)
			}
		}
		for _, who := range wantDiffer {
			if firstDifference(worlds[0].view(t, who, paths), worlds[1].view(t, who, paths)) == "" {
				t.Errorf("%s: the %s is shown the same in both worlds; the crawl sees no results", stage, who)
			}
		}
	}

	// Halfway: four games played, the fifth being played.
	for _, w := range worlds {
		for range 4 {
			w.finish(t, w.queued(t)[0])
		}
		w.start(t, w.queued(t)[0])
	}
	compare(t, "halfway", outsiders, []string{"organiser"})
	for _, w := range worlds {
		if res := w.viewers["organiser"].get(t, "/"); !strings.Contains(res.body, "Entrant") {
			t.Errorf("the organiser's home page does not show the battle game being played")
		}
	}

	// The end, results not released.
	games := 0
	for _, w := range worlds {
		n := len(w.b.queue.matchIDs())
		for q := w.queued(t); len(q) > 0; q = w.queued(t) {
			w.finish(t, q[0])
		}
		if s := w.b.battleStatus(t, w.battle); s != "finished" {
			t.Fatalf("battle %s after every game", s)
		}
		games = max(games, len(w.b.queue.matchIDs())-n)
	}
	if games == 0 {
		t.Fatal("no game was played after halfway")
	}
	compare(t, "finished, hidden", outsiders, []string{"organiser"})

	for _, w := range worlds {
		org := w.viewers["organiser"].br
		path := fmt.Sprintf("/battles/%d", w.battle)
		if res := org.post(path+"/release", url.Values{"csrf_token": {org.token(path)}}); res.status != http.StatusSeeOther {
			t.Fatalf("release: status %d", res.status)
		}
	}
	compare(t, "released", nil, append(outsiders, "organiser"))
}

// botID returns the id of the bot called name.
func (b *testBundle) botID(t *testing.T, name string) int64 {
	t.Helper()
	var id int64
	if err := b.st.DB().QueryRow(b.ctx, `SELECT id FROM bots WHERE name = $1`, name).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}
