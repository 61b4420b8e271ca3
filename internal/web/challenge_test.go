package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/store"
)

// challenge posts a challenge from the bot page and returns the redirect.
func (br *browser) challenge(theirBot, myBot int64) response {
	br.t.Helper()
	return br.post(fmt.Sprintf("/bots/%d/challenge", theirBot), url.Values{"bot_id": {fmt.Sprint(myBot)}, "csrf_token": {"-"}})
}

// idFrom reads the number after prefix in a redirect.
func idFrom(t *testing.T, res response, prefix string) int64 {
	t.Helper()
	var id int64
	if _, err := fmt.Sscanf(res.header.Get("Location"), prefix+"%d", &id); res.status != http.StatusSeeOther || err != nil {
		t.Fatalf("status %d, redirect to %q, want %s…", res.status, res.header.Get("Location"), prefix)
	}
	return id
}

func TestChallenges(t *testing.T) {
	b := setup(t, nil)
	alice, bob, carol := b.browser(t), b.browser(t), b.browser(t)
	alice.register("alice")
	bob.register("bob")
	carol.register("carol")
	aBot, _ := b.builtBot(t, b.userID(t, "alice"), "Ahab")
	bBot, _ := b.builtBot(t, b.userID(t, "bob"), "Nemo")
	cBot, _ := b.builtBot(t, b.userID(t, "carol"), "Cara")
	offBot, _ := b.builtBot(t, b.userID(t, "carol"), "Off")
	if _, err := b.st.DB().Exec(b.ctx, `UPDATE bots SET disabled = true WHERE id = $1`, offBot); err != nil {
		t.Fatal(err)
	}
	draft, err := b.st.UploadRecord(b.ctx, store.UploadParams{
		OwnerID: b.userID(t, "bob"), Name: "Draft", Game: "entelect", Language: "Python3", BotType: "Python3",
		Manifest: json.RawMessage(`{}`), SourceSHA256: "00", SourceSize: 1,
		SourceKey: blob.SourceKey,
	})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("refusals change nothing", func(t *testing.T) {
		cases := []struct {
			name         string
			who          *browser
			theirs, mine int64
			status       int
			want         string
		}{
			// Issue 4, bad input: a bot with no built version, a disabled bot, yourself.
			{"challenging with a bot with no built version", bob, aBot, draft.BotID, 409, "no successfully built version"},
			{"challenging a bot with no built version", alice, draft.BotID, aBot, 409, "no successfully built version"},
			{"challenging a disabled bot", alice, offBot, aBot, 409, "disabled"},
			{"challenging with a disabled bot", carol, aBot, offBot, 409, "disabled"},
			{"challenging yourself", carol, offBot, cBot, 422, "cannot challenge your own"},
			// A member cannot act for another member.
			{"challenging with another user's bot", carol, aBot, bBot, 403, "your own bots"},
			{"challenging a bot that does not exist", alice, 999999, aBot, 404, "does not exist"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before, matches := b.count(t, "challenges"), b.count(t, "matches")
				res := c.who.challenge(c.theirs, c.mine)
				if res.status != c.status || !strings.Contains(res.body, c.want) {
					t.Fatalf("status %d, want %d with %q", res.status, c.status, c.want)
				}
				if b.count(t, "challenges") != before || b.count(t, "matches") != matches {
					t.Fatal("a refused challenge was recorded")
				}
			})
		}
	})

	cid := idFrom(t, bob.challenge(aBot, bBot), "/challenges/")
	cPath := fmt.Sprintf("/challenges/%d", cid)

	t.Run("a pending challenge waits for the challenged owner", func(t *testing.T) {
		if len(b.queue.matchIDs()) != 0 {
			t.Fatal("a match was queued before the answer")
		}
		res := alice.get("/challenges")
		if !strings.Contains(res.body, cPath+"/accept") || !strings.Contains(res.body, cPath+"/decline") {
			t.Fatal("the challenged owner is not offered accept and decline")
		}
		if res := bob.get(cPath); res.status != 200 || !strings.Contains(res.body, "pending") || strings.Contains(res.body, cPath+"/accept") {
			t.Fatalf("the challenger's view: status %d", res.status)
		}
	})

	t.Run("nobody else can answer it", func(t *testing.T) {
		cases := []struct {
			name   string
			who    *browser
			action string
			status int
		}{
			{"the challenger accepting", bob, "accept", 403},
			// To a stranger it does not exist: its status and bots stay hidden.
			{"a third user accepting", carol, "accept", 404},
			{"a third user declining", carol, "decline", 404},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res := c.who.post(cPath+"/"+c.action, url.Values{"csrf_token": {"-"}})
				if res.status != c.status {
					t.Fatalf("status %d, want %d", res.status, c.status)
				}
				if got, _ := b.st.ChallengeGetByID(b.ctx, cid); got.Status != "pending" || len(b.queue.matchIDs()) != 0 {
					t.Fatalf("the challenge is %s", got.Status)
				}
			})
		}
		if res := carol.get(cPath); res.status != http.StatusNotFound {
			t.Fatalf("a third user sees the challenge: status %d", res.status)
		}
	})

	t.Run("declined, it cannot be accepted any more", func(t *testing.T) {
		if res := alice.post(cPath+"/decline", url.Values{"csrf_token": {"-"}}); res.status != http.StatusSeeOther {
			t.Fatalf("decline: status %d", res.status)
		}
		res := alice.post(cPath+"/accept", url.Values{"csrf_token": {"-"}})
		if res.status != http.StatusConflict || !strings.Contains(res.body, "already declined") {
			t.Fatalf("accept after decline: status %d", res.status)
		}
		if len(b.queue.matchIDs()) != 0 {
			t.Fatal("a declined challenge queued a match")
		}
	})

	t.Run("the challenger withdraws a pending challenge", func(t *testing.T) {
		id := idFrom(t, bob.challenge(aBot, bBot), "/challenges/")
		if res := bob.post(fmt.Sprintf("/challenges/%d/decline", id), url.Values{"csrf_token": {"-"}}); res.status != http.StatusSeeOther {
			t.Fatalf("withdraw: status %d", res.status)
		}
		if got, _ := b.st.ChallengeGetByID(b.ctx, id); got.Status != "canceled" {
			t.Fatalf("status %s, want canceled", got.Status)
		}
	})

	t.Run("auto-accept plays at once; the result links to its match", func(t *testing.T) {
		if res := alice.post("/challenges/auto-accept", url.Values{"auto_accept": {"on"}, "csrf_token": {"-"}}); res.status != http.StatusSeeOther {
			t.Fatalf("auto-accept: status %d", res.status)
		}
		matchID := idFrom(t, bob.challenge(aBot, bBot), "/matches/")
		if got := b.queue.matchIDs(); len(got) != 1 || got[0] != matchID {
			t.Fatalf("queued %v, want [%d]", got, matchID)
		}
		m, err := b.st.MatchDetailGet(b.ctx, matchID)
		if err != nil || m.Ranked || m.Players[0].BotID != bBot || m.Players[1].BotID != aBot {
			t.Fatalf("match %+v, %v", m, err)
		}
		finish(t, b, matchID, "loss", "win")
		cs, err := b.st.ChallengeListForUser(b.ctx, b.userID(t, "bob"), 1)
		if err != nil || len(cs) != 1 || cs[0].MatchID == nil || *cs[0].MatchID != matchID {
			t.Fatalf("bob's latest challenge %+v (%v), want the one of match %d", cs, err, matchID)
		}
		for _, who := range []*browser{alice, bob} {
			res := who.get("/challenges")
			if !strings.Contains(res.body, fmt.Sprintf(`href="/matches/%d">Ahab (alice) won`, matchID)) {
				t.Fatalf("the challenges page does not link the result to its match")
			}
			// Its match over, the challenge reads played, not accepted; the
			// result beside it is the one link to the match.
			if !strings.Contains(res.body, `<td class="challenge-state">played`) || strings.Count(res.body, fmt.Sprintf(`href="/matches/%d"`, matchID)) != 1 {
				t.Fatalf("the challenges page does not show the challenge played:\n%s", res.body)
			}
			// The challenge's own page states the result and links the match.
			res = who.get(fmt.Sprintf("/challenges/%d", cs[0].ID))
			for _, want := range []string{"Ahab (alice) won</strong>", fmt.Sprintf(`href="/matches/%d">Watch match #%d`, matchID, matchID),
				`<strong id="challenge-status">played</strong>`} {
				if !strings.Contains(res.body, want) {
					t.Fatalf("the challenge page lacks %q:\n%s", want, res.body)
				}
			}
			if strings.Contains(res.body, "@challengeResult") {
				t.Fatalf("the challenge page prints a template call")
			}
		}
	})

	t.Run("the rate limit", func(t *testing.T) {
		if _, err := b.st.DB().Exec(b.ctx, `
			INSERT INTO challenges (challenger_id, challenger_bot_id, challenged_bot_id)
			SELECT $1, $2, $3 FROM generate_series(1, 30)`, b.userID(t, "carol"), cBot, aBot); err != nil {
			t.Fatal(err)
		}
		before := b.count(t, "challenges")
		res := carol.challenge(aBot, cBot)
		if res.status != http.StatusTooManyRequests || b.count(t, "challenges") != before {
			t.Fatalf("status %d", res.status)
		}
	})
}

// finish records a match's result with the given outcomes by seat.
func finish(t *testing.T, b *testBundle, matchID int64, outcomes ...string) {
	t.Helper()
	p := store.MatchFinishParams{ID: matchID, Rounds: 3, Summary: json.RawMessage(`{}`)}
	for i, o := range outcomes {
		p.Players = append(p.Players, store.MatchPlayerResult{Seat: i, Key: string(rune('A' + i)), Points: 10 * (i + 1), Outcome: o, Rank: i + 1})
	}
	if _, err := b.st.MatchStart(b.ctx, matchID); err != nil {
		t.Fatal(err)
	}
	if err := b.st.MatchFinish(b.ctx, p); err != nil {
		t.Fatal(err)
	}
}

func TestChallengeAPI(t *testing.T) {
	b := setup(t, nil)
	ann, ben, cat := b.browser(t), b.browser(t), b.browser(t)
	ann.register("ann")
	ben.register("ben")
	cat.register("cat")
	annTok, benTok, catTok := ann.apiToken("a"), ben.apiToken("b"), cat.apiToken("c")
	annBot, _ := b.builtBot(t, b.userID(t, "ann"), "Pyro")
	benBot, _ := b.builtBot(t, b.userID(t, "ben"), "Gopher")

	status, out := b.api(t, "POST", fmt.Sprintf("/api/bots/%d/challenge", annBot), benTok, "application/json",
		[]byte(fmt.Sprintf(`{"bot_id": %d}`, benBot)))
	if status != http.StatusAccepted || out["challenge_status"] != "pending" {
		t.Fatalf("challenge: %d %v", status, out)
	}
	id := int64(out["challenge_id"].(float64))

	t.Run("the challenged owner finds it among the pending ones", func(t *testing.T) {
		status, out := b.api(t, "GET", "/api/challenges?status=pending", annTok, "", nil)
		list, _ := out["challenges"].([]any)
		if status != 200 || len(list) != 1 || list[0].(map[string]any)["id"] != float64(id) {
			t.Fatalf("%d %v", status, out)
		}
		if _, out := b.api(t, "GET", "/api/challenges?status=accepted", annTok, "", nil); len(out["challenges"].([]any)) != 0 {
			t.Fatalf("accepted ones: %v", out)
		}
	})

	cases := []struct {
		name, method, path, token string
		status                    int
		want                      string
	}{
		{"listing needs a token", "GET", "/api/challenges", "", 401, "token"},
		{"a bad status filter", "GET", "/api/challenges?status=won", annTok, 400, "status is pending"},
		{"others cannot see it", "GET", fmt.Sprintf("/api/challenges/%d", id), catTok, 404, "no challenge of yours"},
		{"others cannot decline it", "POST", fmt.Sprintf("/api/challenges/%d/decline", id), catTok, 404, "no challenge of yours"},
		{"others cannot accept it", "POST", fmt.Sprintf("/api/challenges/%d/accept", id), catTok, 404, "no challenge of yours"},
		{"the challenger sees it", "GET", fmt.Sprintf("/api/challenges/%d", id), benTok, 200, `"status": "pending"`},
		{"the challenged owner declines it", "POST", fmt.Sprintf("/api/challenges/%d/decline", id), annTok, 200, `"challenge_status": "declined"`},
		{"then it cannot be accepted", "POST", fmt.Sprintf("/api/challenges/%d/accept", id), annTok, 409, "already declined"},
		{"others learn nothing of an answered one", "POST", fmt.Sprintf("/api/challenges/%d/accept", id), catTok, 404, "no challenge of yours"},
		{"a missing challenge", "POST", "/api/challenges/999999/accept", annTok, 404, "no challenge of yours"},
		{"a missing challenge's answer", "GET", "/api/challenges/999999", annTok, 404, "no challenge of yours"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, out := b.api(t, c.method, c.path, c.token, "", nil)
			raw, _ := json.MarshalIndent(out, "", "  ")
			if status != c.status || !strings.Contains(string(raw), c.want) {
				t.Fatalf("status %d, want %d with %q in %s", status, c.status, c.want, raw)
			}
			if c.token == catTok && (strings.Contains(string(raw), "Pyro") || strings.Contains(string(raw), "declined")) {
				t.Fatalf("a stranger learns of the challenge: %s", raw)
			}
		})
	}
	// Someone else's challenge and one never made answer alike, byte for
	// byte: trying numbers tells a stranger nothing.
	for _, act := range []string{"GET ", "POST /accept", "POST /decline"} {
		method, suffix, _ := strings.Cut(act, " ")
		get := func(path string) string {
			req, _ := http.NewRequest(method, b.srv.URL+path+suffix, nil)
			req.Header.Set("Authorization", "Bearer "+catTok)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			return fmt.Sprintf("%d %s", res.StatusCode, body)
		}
		if theirs, none := get(fmt.Sprintf("/api/challenges/%d", id)), get("/api/challenges/999999"); theirs != none {
			t.Errorf("%s: someone else's challenge answers %q, a missing one %q", act, theirs, none)
		}
	}
	if n := b.count(t, "matches"); n != 0 {
		t.Fatalf("%d matches were queued", n)
	}
}

func TestChallengePolicy(t *testing.T) {
	b := setup(t, nil)
	org, ann, ben := b.browser(t), b.browser(t), b.browser(t)
	org.register("org")
	ann.register("ann")
	ben.register("ben")
	if _, err := b.st.UserSetRole(b.ctx, "org", "organiser"); err != nil {
		t.Fatal(err)
	}
	annBot, _ := b.builtBot(t, b.userID(t, "ann"), "Pyro")
	benBot, _ := b.builtBot(t, b.userID(t, "ben"), "Gopher")
	setting := func() string {
		v, err := b.st.SettingGet(b.ctx, "open_challenges", "true")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	t.Run("a contestant cannot change it", func(t *testing.T) {
		res := ann.post("/challenges/policy", url.Values{"open": {"false"}, "csrf_token": {"-"}})
		if res.status != http.StatusForbidden || !strings.Contains(res.body, "Only organisers") || setting() != "true" {
			t.Fatalf("status %d, setting %s", res.status, setting())
		}
		if strings.Contains(ann.get("/challenges").body, "/challenges/policy") {
			t.Fatal("a contestant is offered the policy form")
		}
	})

	t.Run("an organiser limits challenges to clans, audited", func(t *testing.T) {
		before := b.count(t, "audit_log")
		res := org.post("/challenges/policy", url.Values{"open": {"false"}, "csrf_token": {"-"}})
		if res.status != http.StatusSeeOther || setting() != "false" || b.count(t, "audit_log") != before+1 {
			t.Fatalf("status %d, setting %s", res.status, setting())
		}
		if !strings.Contains(ann.get("/challenges").body, "Only the bots of your clan") {
			t.Fatal("the challenges page does not say challenges are limited to clans")
		}
	})

	t.Run("then a challenge outside the clan is refused, inside it goes through", func(t *testing.T) {
		res := ben.challenge(annBot, benBot)
		if res.status != http.StatusForbidden || !strings.Contains(res.body, "within a clan only") || b.count(t, "challenges") != 0 {
			t.Fatalf("status %d", res.status)
		}
		ann.post("/clans", url.Values{"name": {"Kraken"}, "csrf_token": {"-"}})
		clan := b.clanOf(t, "ann")
		ben.post(fmt.Sprintf("/clans/%d/join", clan.ID), url.Values{"key": {clan.JoinKey}, "csrf_token": {"-"}})
		idFrom(t, ben.challenge(annBot, benBot), "/challenges/")
	})

	t.Run("a malformed choice", func(t *testing.T) {
		if res := org.post("/challenges/policy", url.Values{"open": {"maybe"}, "csrf_token": {"-"}}); res.status != http.StatusBadRequest {
			t.Fatalf("status %d", res.status)
		}
	})
}
