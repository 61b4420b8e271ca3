package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// sseStream reads a server-sent event stream event by event.
type sseStream struct {
	res    *http.Response
	events chan [2]string // name, data
}

func openStream(t *testing.T, url string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	return openRequest(t, req)
}

// openRequest is openStream for a request of the caller's (its headers,
// its context).
func openRequest(t *testing.T, req *http.Request) *sseStream {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	s := &sseStream{res: res, events: make(chan [2]string, 16)}
	go func() {
		defer res.Body.Close()
		defer close(s.events)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var name, data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			case line == "" && name != "":
				s.events <- [2]string{name, data}
				name, data = "", ""
			}
		}
	}()
	return s
}

// next waits for the next event; the stream's own end or a minute without
// one fails the test.
func (s *sseStream) next(t *testing.T) (string, string) {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev[0], ev[1]
	case <-time.After(time.Minute):
		t.Fatal("no event for a minute")
	}
	return "", ""
}

// nextBut waits for the next event that is not a status report (a start's
// notification may arrive after the stream opened).
func (s *sseStream) nextBut(t *testing.T) (string, string) {
	t.Helper()
	for {
		if name, data := s.next(t); name != "status" {
			return name, data
		}
	}
}

// liveRound is a round folder's root files from the original engine's
// replay, as the worker publishes them.
func liveRound(t *testing.T, seq int, name string) store.LiveRound {
	t.Helper()
	dir := filepath.Join("..", "game", "entelect", "testdata", "golden", "v1.2.2-mono-small-7x7", name)
	r := store.LiveRound{Seq: seq, Name: name, Files: map[string]string{}}
	for _, f := range []string{"state.json", "A - map.txt", "B - map.txt", "roundCommand.json"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		r.Files[f] = string(data)
	}
	return r
}

// queuedChallenge registers a user with two built bots and records a
// challenge between them, queued; the user's browser comes with it.
func queuedChallenge(t *testing.T, b *testBundle) (*browser, *store.MatchRow) {
	t.Helper()
	visitor := b.browser(t)
	visitor.register("watcher")
	owner := b.userID(t, "watcher")
	aBot, aVer := b.builtBot(t, owner, "Ahab")
	bBot, bVer := b.builtBot(t, owner, "Nemo")
	m, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{
		Game: "entelect", MapSize: 1, Seed: 3, Kind: "challenge",
		Players: []store.MatchPlayerParams{{BotID: aBot, BotVersionID: aVer}, {BotID: bBot, BotVersionID: bVer}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return visitor, m
}

// TestMatchLive follows a running match: its event stream sends each
// round drawn as the worker publishes it, its page shows the rounds so
// far, and the stream ends with the match; a finished match's stream
// answers at once.
func TestMatchLive(t *testing.T) {
	b := setup(t, nil)
	visitor, m := queuedChallenge(t, b)
	base := fmt.Sprintf("%s/matches/%d", b.srv.URL, m.ID)

	// A queued match publishes nothing: its rounds belong to an attempt.
	if err := b.st.MatchLiveRoundAdd(b.ctx, m.ID, liveRound(t, 0, "Phase 1 - Round 0")); err != nil {
		t.Fatal(err)
	}
	if rounds, _ := b.st.MatchLiveRounds(b.ctx, m.ID, 0); len(rounds) != 0 {
		t.Fatalf("a queued match has %d live rounds", len(rounds))
	}
	if _, err := b.st.MatchStart(b.ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if res := visitor.get(fmt.Sprintf("/matches/%d", m.ID)); !strings.Contains(res.body, `id="live-wait"`) ||
		!strings.Contains(res.body, `<noscript><meta http-equiv="refresh" content="5"></noscript>`) {
		t.Fatalf("a running match without rounds: no live placeholder or script-less refresh\n%s", res.body)
	}
	// Its round count and the players' results are not known yet: the page
	// does not show them as zeros.
	if res := visitor.get(fmt.Sprintf("/matches/%d", m.ID)); strings.Contains(res.body, " rounds ·") ||
		strings.Count(res.body, `<td class="num muted">–</td>`) != 3*2 { // two players, three results each
		t.Errorf("a running match's page shows a round count or results:\n%s", res.body)
	}

	for _, path := range []string{"/", "/leaderboard"} {
		if res := visitor.get(path); !strings.Contains(res.body, "Playing now") || !strings.Contains(res.body, fmt.Sprintf(`href="/matches/%d"`, m.ID)) {
			t.Errorf("%s does not list the match being played", path)
		}
	}

	s := openStream(t, base+"/events")
	if ct := s.res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	if name, data := s.next(t); name != "status" || data != `{"status":"running"}` {
		t.Fatalf("first event %s %s", name, data)
	}
	for seq, name := range []string{"Phase 1 - Round 0", "Phase 2 - Round 1"} {
		if err := b.st.MatchLiveRoundAdd(b.ctx, m.ID, liveRound(t, seq, name)); err != nil {
			t.Fatal(err)
		}
		ev, data := s.nextBut(t)
		var round struct {
			Index, Count int
			HTML         string
		}
		if err := json.Unmarshal([]byte(data), &round); ev != "round" || err != nil {
			t.Fatalf("event %s %s: %v", ev, data, err)
		}
		// A live round has no total yet: "Round 1", not "Round 1 of N";
		// round 0 is the placement before round 1.
		title := fmt.Sprintf(`data-index="%d">Round %d`, seq, seq)
		if seq == 0 {
			title = `data-index="0">Placement, before round 1`
		}
		if round.Index != seq || round.Count != seq+1 || strings.Count(round.HTML, `class="grid"`) != 2 ||
			!strings.Contains(round.HTML, title) ||
			strings.Contains(strings.SplitN(round.HTML, "</h3>", 2)[0], " of ") ||
			!strings.Contains(round.HTML, name) || !strings.Contains(round.HTML, "Ahab (watcher)&#39;s map") {
			t.Fatalf("round event %d: index %d of %d\n%.1000s", seq, round.Index, round.Count, round.HTML)
		}
	}
	res := visitor.get(fmt.Sprintf("/matches/%d", m.ID))
	if !strings.Contains(res.body, `data-live="true"`) || !strings.Contains(res.body, "Phase 2 - Round 1") || strings.Count(res.body, `class="grid"`) != 2 {
		t.Fatalf("the running match's page does not follow its last round\n%s", res.body)
	}
	if res := visitor.get(fmt.Sprintf("/matches/%d/rounds/0", m.ID)); res.status != 200 || !strings.Contains(res.body, "Phase 1 - Round 0") {
		t.Fatalf("round 0 of the running match: %d", res.status)
	}

	err := b.st.MatchFinish(b.ctx, store.MatchFinishParams{
		ID: m.ID, Rounds: 1, Summary: json.RawMessage(`{"game":"entelect"}`),
		Players: []store.MatchPlayerResult{{Seat: 0, Key: "A", Outcome: "win", Rank: 1}, {Seat: 1, Key: "B", Outcome: "loss", Rank: 2}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if name, data := s.nextBut(t); name != "end" || data != `{"status":"finished"}` {
		t.Fatalf("last event %s %s", name, data)
	}
	if rounds, _ := b.st.MatchLiveRounds(b.ctx, m.ID, 0); len(rounds) != 0 {
		t.Errorf("%d live rounds left after the match", len(rounds))
	}
	if res := visitor.get("/"); strings.Contains(res.body, "Playing now") {
		t.Errorf("the front page lists a finished match as playing")
	}
	after := openStream(t, base+"/events")
	if name, data := after.next(t); after.res.Header.Get("Content-Type") != "text/event-stream" || name != "end" || data != `{"status":"finished"}` {
		t.Errorf("a finished match's stream: %s %s", name, data)
	}
}

// TestMatchLiveFollowed: when a running match's page is shown, and while
// a stream follows the match, the portal tells the workers so on
// match_watch: on each page, on opening the stream and again every
// watchRenew (a worker publishes the rounds of followed matches only).
func TestMatchLiveFollowed(t *testing.T) {
	b := setup(t, nil)
	visitor, m := queuedChallenge(t, b)
	if _, err := b.st.MatchStart(b.ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	heard := make(chan int64, 64)
	go func() { _ = b.st.MatchWatchListen(ctx, func(id int64) { heard <- id }) }()
	// The listener is ready once it hears an announcement of its own.
	const probe = 1 << 40
	for ready := false; !ready; {
		if err := b.st.MatchWatchAnnounce(ctx, []int64{probe}); err != nil {
			t.Fatal(err)
		}
		select {
		case id := <-heard:
			ready = id == probe
		case <-time.After(200 * time.Millisecond):
		}
	}

	// heardOf waits for n announcements of the match.
	heardOf := func(what string, n int) {
		t.Helper()
		for got := 0; got < n; {
			select {
			case id := <-heard:
				if id == m.ID {
					got++
				}
			case <-time.After(time.Minute):
				t.Fatalf("%s: %d announcements of the match in a minute, want %d", what, got, n)
			}
		}
	}
	// The page, for a browser without scripts that refreshes it.
	if res := visitor.get(fmt.Sprintf("/matches/%d", m.ID)); res.status != http.StatusOK {
		t.Fatalf("match page: %d", res.status)
	}
	heardOf("the page", 1)
	s := openStream(t, fmt.Sprintf("%s/matches/%d/events", b.srv.URL, m.ID))
	if name, _ := s.next(t); name != "status" {
		t.Fatalf("first event %s", name)
	}
	// Once on opening, then at least once more while the stream stays.
	heardOf("the stream", 2)
}
