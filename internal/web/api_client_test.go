package web_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/store"
)

// getWithToken fetches path with a bearer token (none when empty) and no
// cookies.
func (b *testBundle) getWithToken(t *testing.T, path, token string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, body
}

// TestAPITokenOnDownloads: what a command-line client needs beside the
// API answers a token as a logged-in session: /api/me, the replay with the
// owner's logs, the build log and its event stream.
func TestAPITokenOnDownloads(t *testing.T) {
	b := setup(t, botupload.ZipInspector{Limits: botzip.DefaultLimits()})
	ann, ben := b.browser(t), b.browser(t)
	ann.register("ann")
	ben.register("ben")
	annTok, benTok := ann.apiToken("laptop"), ben.apiToken("ci")
	annBot, annVer := b.builtBot(t, b.userID(t, "ann"), "Ahab")
	benBot, benVer := b.builtBot(t, b.userID(t, "ben"), "Nemo")
	match := b.playedMatch(t, [2][2]int64{{annBot, annVer}, {benBot, benVer}})

	t.Run("me", func(t *testing.T) {
		status, out := b.api(t, "GET", "/api/me", annTok, "", nil)
		if status != http.StatusOK || out["username"] != "ann" {
			t.Fatalf("status %d: %v", status, out)
		}
		if status, _ := b.api(t, "GET", "/api/me", "", "", nil); status != http.StatusUnauthorized {
			t.Fatalf("without a token: status %d", status)
		}
		if status, _ := b.api(t, "GET", "/api/me", "bs_mistyped", "", nil); status != http.StatusUnauthorized {
			t.Fatalf("a bad token: status %d", status)
		}
	})

	t.Run("upload for a game", func(t *testing.T) {
		for _, c := range []struct {
			game, want string
			status     int
		}{
			{"chess", "no game called", http.StatusBadRequest},
			{"brainjar", "you chose BrainJar", http.StatusUnprocessableEntity},
		} {
			status, out := b.api(t, "POST", "/api/bots?game="+c.game, annTok, "application/zip", goodZip(t))
			if msg, _ := out["error"].(string); status != c.status || !strings.Contains(msg, c.want) {
				t.Errorf("game %s: status %d: %v", c.game, status, out)
			}
		}
		if status, out := b.api(t, "POST", "/api/bots?game=entelect", annTok, "application/zip", goodZip(t)); status != http.StatusCreated {
			t.Errorf("game entelect: status %d: %v", status, out)
		}
	})

	t.Run("replay with the owner's log", func(t *testing.T) {
		path := fmt.Sprintf("/matches/%d/replay.zip", match)
		for _, c := range []struct {
			who, token string
			logs       []string
		}{
			{"ann", annTok, []string{"Phase 1 - Round 0/A/log.txt"}},
			{"ben", benTok, []string{"Phase 1 - Round 0/B/log.txt"}},
			{"nobody", "", nil},
		} {
			status, body := b.getWithToken(t, path, c.token)
			if status != http.StatusOK {
				t.Fatalf("%s: status %d", c.who, status)
			}
			zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
			if err != nil {
				t.Fatalf("%s: %v", c.who, err)
			}
			var logs []string
			for _, f := range zr.File {
				if strings.HasSuffix(f.Name, "log.txt") {
					logs = append(logs, f.Name)
				}
			}
			if !slices.Equal(logs, c.logs) {
				t.Errorf("%s gets the logs %v, want %v", c.who, logs, c.logs)
			}
		}
		if status, body := b.getWithToken(t, path, "bs_mistyped"); status != http.StatusUnauthorized {
			t.Fatalf("a bad token: status %d", status)
		} else if !strings.Contains(string(body), `"error"`) {
			t.Fatalf("a script's refusal is not JSON: %s", body)
		}
		// A proxy's Basic credentials, which browsers repeat, are no token.
		req, _ := http.NewRequest(http.MethodGet, b.srv.URL+path, nil)
		req.SetBasicAuth("proxy", "secret")
		if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("with Basic credentials: %v %v", res, err)
		} else {
			res.Body.Close()
		}
		if status, body := b.getWithToken(t, "/matches/999999/replay.zip", annTok); status != http.StatusNotFound || !strings.Contains(string(body), `"error"`) {
			t.Fatalf("a missing match with a token: status %d: %s", status, body)
		}
	})

	t.Run("build log", func(t *testing.T) {
		path := fmt.Sprintf("/bots/%d/versions/1/build.log", annBot)
		if status, body := b.getWithToken(t, path, annTok); status != http.StatusOK || !strings.Contains(string(body), "secret build log of Ahab") {
			t.Fatalf("the owner's token: status %d: %s", status, body)
		}
		for _, tok := range []string{benTok, ""} {
			if status, body := b.getWithToken(t, path, tok); status != http.StatusNotFound || strings.Contains(string(body), "secret") {
				t.Fatalf("another's token %q: status %d", tok, status)
			}
		}
	})

	t.Run("build events", func(t *testing.T) {
		up := b.buildingVersion(t, b.userID(t, "ann"), "Ahab")
		if err := b.st.BuildLogAppend(b.ctx, up.VersionID, store.BuildLogChunk{Seq: 0, Text: "$ pip install\n"}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet,
			fmt.Sprintf("%s/bots/%d/versions/%d/events", b.srv.URL, annBot, up.Number), nil)
		req.Header.Set("Authorization", "Bearer "+annTok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		// The owner's stream catches up with the log at once after its status.
		sc := bufio.NewScanner(res.Body)
		var events []string
		for sc.Scan() && len(events) < 2 {
			if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				events = append(events, name)
			}
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && len(events) == 2 && !strings.Contains(data, "pip install") {
				t.Fatalf("log event %s", data)
			}
		}
		if !slices.Equal(events, []string{"status", "log"}) {
			t.Fatalf("events %v, want status then log", events)
		}
	})
}

// TestAPIMatchFilters: a user's own matches, by result, kind and date.
func TestAPIMatchFilters(t *testing.T) {
	b := setup(t, nil)
	ann, ben := b.browser(t), b.browser(t)
	ann.register("ann")
	ben.register("ben")
	annTok := ann.apiToken("laptop")
	annBot, annVer := b.builtBot(t, b.userID(t, "ann"), "Ahab")
	benBot, benVer := b.builtBot(t, b.userID(t, "ben"), "Nemo")
	bensOther, bensOtherVer := b.builtBot(t, b.userID(t, "ben"), "Moby")
	won := b.playedMatch(t, [2][2]int64{{annBot, annVer}, {benBot, benVer}})  // a challenge Ahab won
	lost := b.playedMatch(t, [2][2]int64{{benBot, benVer}, {annBot, annVer}}) // one Ahab lost
	other := b.playedMatch(t, [2][2]int64{{benBot, benVer}, {bensOther, bensOtherVer}})
	queued, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: 2, Kind: "ladder", Ranked: true,
		Players: []store.MatchPlayerParams{{BotID: annBot, BotVersionID: annVer}, {BotID: benBot, BotVersionID: benVer}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		want  []int64
	}{
		{"mine=true", []int64{queued.ID, lost, won}},
		{"mine=true&result=won", []int64{won}},
		{"mine=true&result=lost", []int64{lost}},
		{"mine=true&result=drawn", nil},
		{fmt.Sprintf("bot=%d&result=won", benBot), []int64{other, lost}},
		{"mine=true&kind=challenge", []int64{lost, won}},
		{"mine=true&ranked=true", []int64{queued.ID}},
		{"mine=true&since=2000-01-01", []int64{queued.ID, lost, won}},
		{"mine=true&since=2999-01-01T00:00:00Z", nil},
	} {
		_, items := b.apiList(t, "/api/matches?"+c.query, annTok, "matches")
		if got := ids(items, "id"); !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	for _, c := range []struct {
		query, token string
		status       int
	}{
		{"mine=true", "", http.StatusUnauthorized},
		{"result=won", annTok, http.StatusBadRequest},
		{"mine=true&result=victory", annTok, http.StatusBadRequest},
		{"kind=friendly", annTok, http.StatusBadRequest},
		{"since=yesterday", annTok, http.StatusBadRequest},
	} {
		if status, out := b.api(t, "GET", "/api/matches?"+c.query, c.token, "", nil); status != c.status || out["error"] == nil {
			t.Errorf("%s: status %d, want %d: %v", c.query, status, c.status, out)
		}
	}
}
