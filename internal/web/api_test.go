package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/store"
)

var tokenPattern = regexp.MustCompile(`id="new-token">(bs_[A-Za-z0-9_-]+)<`)

// apiToken creates a token on the account page and returns it.
func (br *browser) apiToken(name string) string {
	br.t.Helper()
	res := br.post("/account/tokens", url.Values{"name": {name}, "csrf_token": {"-"}})
	m := tokenPattern.FindStringSubmatch(res.body)
	if res.status != http.StatusOK || m == nil {
		br.t.Fatalf("create token: status %d, token shown: %v", res.status, m != nil)
	}
	if res.header.Get("Cache-Control") != "no-store" {
		br.t.Fatal("the page showing a new token may be cached")
	}
	return m[1]
}

// api sends a request with an optional bearer token and decodes the JSON answer.
func (b *testBundle) api(t *testing.T, method, path, token, contentType string, body []byte) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, b.srv.URL+path, bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: answer is not JSON: %v", method, path, err)
	}
	return res.StatusCode, out
}

func TestAPI(t *testing.T) {
	b := setup(t, botupload.ZipInspector{Limits: botzip.DefaultLimits()})
	ann, ben := b.browser(t), b.browser(t)
	ann.register("ann")
	ben.register("ben")
	annTok, benTok := ann.apiToken("laptop"), ben.apiToken("ci")

	status, up := b.api(t, "POST", "/api/bots?name=Pyro", annTok, "application/zip", goodZip(t))
	if status != http.StatusCreated || up["version"] != 1.0 || up["build_status"] != "queued" {
		t.Fatalf("upload: %d %v", status, up)
	}
	annBot := int64(up["bot_id"].(float64))
	if err := b.st.BotVersionFinishBuild(b.ctx, int64(up["version_id"].(float64)), store.BuildResult{OK: true, Log: "ann's build log", ArtifactKey: "a"}); err != nil {
		t.Fatal(err)
	}
	benBot, _ := b.builtBot(t, b.userID(t, "ben"), "Nemo")

	cases := []struct {
		name, method, path, token, contentType, body string
		status                                       int
		want                                         string
	}{
		{"upload needs a token", "POST", "/api/bots", "", "application/zip", "x", 401, "API token"},
		{"a wrong token is refused", "GET", "/api/leaderboard", "bs_nope", "", "", 401, "not valid"},
		{"anonymous reads are allowed", "GET", "/api/leaderboard", "", "", "", 200, `"game": "entelect"`},
		{"upload refusals are JSON", "POST", "/api/bots", annTok, "application/zip", "not a zip", 422, "not a zip"},
		{"upload needs a zip body", "POST", "/api/bots", annTok, "text/plain", "x", 415, "multipart/form-data"},
		{"leaderboard", "GET", "/api/leaderboard", "", "", "", 200, `"bot_name": "Nemo"`},
		{"unknown game", "GET", "/api/leaderboard?game=chess", "", "", "", 404, "no game"},
		{"bot for its owner has the build log", "GET", fmt.Sprintf("/api/bots/%d", annBot), annTok, "", "", 200, "ann's build log"},
		{"missing bot", "GET", "/api/bots/999999", "", "", "", 404, "nothing here"},
		{"challenge needs a body", "POST", fmt.Sprintf("/api/bots/%d/challenge", annBot), benTok, "application/json", "{}", 400, "bot_id"},
		{"challenge with someone else's bot", "POST", fmt.Sprintf("/api/bots/%d/challenge", annBot), benTok, "application/json", fmt.Sprintf(`{"bot_id": %d}`, annBot), 403, "your own bots"},
		{"unknown endpoint", "GET", "/api/nothing", "", "", "", 404, "no such API endpoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, out := b.api(t, c.method, c.path, c.token, c.contentType, []byte(c.body))
			raw, _ := json.MarshalIndent(out, "", "  ")
			if status != c.status || !strings.Contains(string(raw), c.want) {
				t.Fatalf("status %d, want %d with %q in %s", status, c.status, c.want, raw)
			}
		})
	}

	t.Run("others get neither the build log nor the source's checksum", func(t *testing.T) {
		for _, tok := range []string{benTok, ""} {
			_, out := b.api(t, "GET", fmt.Sprintf("/api/bots/%d", annBot), tok, "", nil)
			raw, _ := json.Marshal(out)
			if strings.Contains(string(raw), "build log") || strings.Contains(string(raw), "build_log") || strings.Contains(string(raw), "sha256") {
				t.Fatalf("build log or checksum leaked: %s", raw)
			}
		}
		_, out := b.api(t, "GET", fmt.Sprintf("/api/bots/%d", annBot), annTok, "", nil)
		v := out["versions"].([]any)[0].(map[string]any)
		if sum, _ := v["sha256"].(string); len(sum) != 64 {
			t.Fatalf("the owner's version has checksum %q", sum)
		}
	})

	t.Run("challenge, accept, then the match for each owner", func(t *testing.T) {
		status, out := b.api(t, "POST", fmt.Sprintf("/api/bots/%d/challenge", annBot), benTok, "application/json",
			[]byte(fmt.Sprintf(`{"bot_id": %d}`, benBot)))
		if status != http.StatusAccepted || out["status"] != "pending" {
			t.Fatalf("challenge: %d %v", status, out)
		}
		accept := fmt.Sprintf("/api/challenges/%d/accept", int64(out["challenge_id"].(float64)))
		if status, out := b.api(t, "POST", accept, benTok, "", nil); status != http.StatusForbidden {
			t.Fatalf("the challenger accepted: %d %v", status, out)
		}
		status, out = b.api(t, "POST", accept, annTok, "", nil)
		if status != http.StatusCreated || out["status"] != "queued" {
			t.Fatalf("accept: %d %v", status, out)
		}
		status, m := b.api(t, "GET", out["url"].(string), benTok, "", nil)
		players, _ := m["players"].([]any)
		if status != 200 || m["ranked"] != false || m["kind"] != "challenge" || len(players) != 2 {
			t.Fatalf("match: %d %v", status, m)
		}
		if players[0].(map[string]any)["bot_name"] != "Nemo" {
			t.Fatalf("seat 0 is %v, want the challenger's bot", players[0])
		}
		if _, ok := players[1].(map[string]any)["log"]; ok {
			t.Fatal("ben sees the log of ann's bot")
		}
	})

	t.Run("a revoked token stops working", func(t *testing.T) {
		list, err := b.st.APITokenList(b.ctx, b.userID(t, "ann"))
		if err != nil || len(list) != 1 {
			t.Fatalf("tokens %v, %v", list, err)
		}
		res := ann.post(fmt.Sprintf("/account/tokens/%d/revoke", list[0].ID), url.Values{"csrf_token": {"-"}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("revoke: %d", res.status)
		}
		if status, _ := b.api(t, "GET", "/api/leaderboard", annTok, "", nil); status != http.StatusUnauthorized {
			t.Fatalf("revoked token: status %d", status)
		}
		res = ben.post(fmt.Sprintf("/account/tokens/%d/revoke", list[0].ID), url.Values{"csrf_token": {"-"}})
		if res.status != http.StatusNotFound {
			t.Fatalf("revoking another user's token: %d, want 404", res.status)
		}
	})
}
