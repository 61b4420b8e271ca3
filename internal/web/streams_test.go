package web_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/web"
)

// TestStreamsPerClient: one client address holds at most StreamsPerClient
// event streams at once, match and build streams together; one more is
// answered 429 with Retry-After, other addresses are not affected, and a
// closed stream frees its place.
func TestStreamsPerClient(t *testing.T) {
	b := setupWith(t, nil, func(c *web.Config) {
		c.StreamsPerClient = 3
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	})
	b.browser(t).register("carol")
	owner := b.userID(t, "carol")
	aBot, aVer := b.builtBot(t, owner, "Ahab")
	bBot, bVer := b.builtBot(t, owner, "Nemo")
	m, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: 3, Kind: "challenge",
		Players: []store.MatchPlayerParams{{BotID: aBot, BotVersionID: aVer}, {BotID: bBot, BotVersionID: bVer}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.MatchStart(b.ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	building, err := b.st.UploadRecord(b.ctx, store.UploadParams{OwnerID: owner, Name: "Ahab", Game: "entelect",
		Language: "Python3", BotType: "Python3", Manifest: []byte(`{}`), SourceSHA256: "00", SourceSize: 1,
		SourceKey: func(id int64, n int) string { return fmt.Sprintf("bots/%d/%d.zip", id, n) }})
	if err != nil {
		t.Fatal(err)
	}
	matchEvents := fmt.Sprintf("%s/matches/%d/events", b.srv.URL, m.ID)
	buildEvents := fmt.Sprintf("%s/bots/%d/versions/%d/events", b.srv.URL, aBot, building.Number)

	// open starts a stream from the client at addr and returns its status
	// once its first event came (or its whole answer, when refused).
	type stream struct {
		status int
		header http.Header
		body   string
		close  func()
	}
	open := func(url, addr string) stream {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set("X-Forwarded-For", addr)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		s := stream{status: res.StatusCode, header: res.Header, close: func() { cancel(); res.Body.Close() }}
		if res.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(res.Body)
			s.body = string(body)
			s.close()
			return s
		}
		line, err := bufio.NewReader(res.Body).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "event: status") {
			t.Fatalf("%s: first line %q, %v", url, line, err)
		}
		return s
	}

	var held []stream
	for _, url := range []string{matchEvents, buildEvents, matchEvents} {
		s := open(url, "2001:db8:5::1")
		if s.status != http.StatusOK {
			t.Fatalf("stream %d: %d", len(held)+1, s.status)
		}
		held = append(held, s)
	}
	for _, url := range []string{matchEvents, buildEvents} {
		// Another address of the same /64 is the same client.
		s := open(url, "2001:db8:5::2")
		if s.status != http.StatusTooManyRequests || s.header.Get("Retry-After") == "" || !strings.Contains(s.body, "at most 3 at once") {
			t.Errorf("a fourth stream: %d, Retry-After %q", s.status, s.header.Get("Retry-After"))
		}
	}
	if s := open(matchEvents, "198.51.100.7"); s.status != http.StatusOK {
		t.Errorf("another client's stream: %d", s.status)
	} else {
		s.close()
	}

	// Closing a stream frees its place once the portal sees it gone.
	held[0].close()
	deadline := time.Now().Add(time.Minute)
	for {
		s := open(matchEvents, "2001:db8:5::1")
		if s.status == http.StatusOK {
			s.close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream's place was not freed: %d", s.status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
