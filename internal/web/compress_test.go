package web_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// rawGet fetches path asking for gzip and returns the response with its
// body as sent: the client neither asks on its own nor decompresses.
func rawGet(t *testing.T, ctx context.Context, url string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

func gunzip(t *testing.T, data []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestCompression: pages, scripts and styles go gzipped to a client that
// accepts it; a replay zip goes as it is, and an event stream still
// delivers each event as it happens.
func TestCompression(t *testing.T) {
	b := setup(t, nil)
	alice := b.browser(t)
	alice.register("gzipfan")
	owner := b.userID(t, "gzipfan")
	duel := [][2]int64{b.gameBot(t, owner, "Ahab", "brainjar"), b.gameBot(t, owner, "Nemo", "brainjar")}
	finished := b.gameMatch(t, "brainjar", duel, []store.MatchPlayerResult{
		{Seat: 0, Key: "0", Points: 1, Outcome: "win", Rank: 1}, {Seat: 1, Key: "1", Outcome: "loss", Rank: 2},
	})

	for _, c := range []struct {
		path, contentType, holds string
	}{
		{"/", "text/html", "<!doctype html>"},
		{fmt.Sprintf("/matches/%d", finished), "text/html", "<svg"},
		{fmt.Sprintf("/matches/%d/rounds/1", finished), "text/html", "<svg"},
		{"/static/site.css", "text/css", "svg.grid"},
		{"/static/viewer.js", "text/javascript", "EventSource"},
		{"/api/leaderboard", "application/json", "{"},
	} {
		res, body := rawGet(t, b.ctx, b.srv.URL+c.path)
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), c.contentType) {
			t.Errorf("%s: %s, %s", c.path, res.Status, res.Header.Get("Content-Type"))
			continue
		}
		if res.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s: Content-Encoding %q, Vary %q", c.path, res.Header.Get("Content-Encoding"), res.Header.Get("Vary"))
			continue
		}
		if text := gunzip(t, body); !strings.Contains(text, c.holds) {
			t.Errorf("%s gunzipped lacks %q: %.300s", c.path, c.holds, text)
		}
	}

	// The zip is sent as stored: not gzipped again.
	res, body := rawGet(t, b.ctx, fmt.Sprintf("%s/matches/%d/replay.zip", b.srv.URL, finished))
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "" {
		t.Fatalf("replay.zip: %s, Content-Encoding %q", res.Status, res.Header.Get("Content-Encoding"))
	}
	if zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body))); err != nil || len(zr.File) != 1 {
		t.Fatalf("replay.zip is not the stored zip: %v", err)
	}

	// A running match's stream, asked for gzip: plain, one event at a time.
	a, av := b.builtBot(t, owner, "Hook")
	c, cv := b.builtBot(t, owner, "Drake")
	m, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{
		Game: "entelect", MapSize: 1, Seed: 3, Kind: "challenge",
		Players: []store.MatchPlayerParams{{BotID: a, BotVersionID: av}, {BotID: c, BotVersionID: cv}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.MatchStart(b.ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/matches/%d/events", b.srv.URL, m.ID), nil)
	req.Header.Set("Accept-Encoding", "gzip")
	sres, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer sres.Body.Close()
	if sres.Header.Get("Content-Encoding") != "" || sres.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("event stream: Content-Encoding %q, Content-Type %q", sres.Header.Get("Content-Encoding"), sres.Header.Get("Content-Type"))
	}
	rd := bufio.NewReader(sres.Body)
	event := func() string {
		t.Helper()
		var name string
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			switch line = strings.TrimRight(line, "\n"); {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case line == "" && name != "":
				return name
			}
		}
	}
	if name := event(); name != "status" {
		t.Fatalf("first event %s", name)
	}
	// Each round is read before the next is published: an event held in
	// a compressor's buffer would never arrive.
	for seq, name := range []string{"Phase 1 - Round 0", "Phase 2 - Round 1"} {
		if err := b.st.MatchLiveRoundAdd(b.ctx, m.ID, liveRound(t, seq, name)); err != nil {
			t.Fatal(err)
		}
		for {
			if ev := event(); ev == "round" {
				break
			} else if ev != "status" {
				t.Fatalf("event %s", ev)
			}
		}
	}
}
