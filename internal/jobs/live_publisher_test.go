package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// TestLivePublisherBatches: nothing is published before somebody follows
// the match; then the rounds held go at once, and the rounds given faster
// than the publisher's pace go together, each once and in order, by
// Close: two notifications at most for fifty rounds. A round given after
// Close is dropped, and the rule set's map may be reused. A match nobody
// followed publishes nothing at its Close either.
func TestLivePublisherBatches(t *testing.T) {
	pool := testdb.NewPool(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var id int64
	if err := pool.QueryRow(ctx, `INSERT INTO matches (seed, status, started_at) VALUES (1, 'running', now()) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN match_events"); err != nil {
		t.Fatal(err)
	}
	st := store.New(pool)
	// An hour between publications: only the watch and Close publish.
	p := newLivePublisher(ctx, st, id, slog.New(slog.DiscardHandler), time.Hour)
	files := map[string]string{}
	const rounds, unwatched = 50, 20
	give := func(from, to int) {
		for seq := from; seq < to; seq++ {
			files["state.json"] = string(rune('a' + seq%26))
			p.Progress(ctx, game.RoundProgress{Seq: seq, Name: "round", Files: files})
		}
	}
	give(0, unwatched)
	// Nobody follows the match yet: nothing is published or due.
	p.mu.Lock()
	due := p.timer != nil
	p.mu.Unlock()
	if got, err := st.MatchLiveRounds(ctx, id, 0); err != nil || len(got) != 0 || due {
		t.Fatalf("before the watch: %d rounds stored (%v), a publication due: %v", len(got), err, due)
	}
	p.watch()
	give(unwatched, rounds)
	p.Close()
	p.Progress(ctx, game.RoundProgress{Seq: rounds, Name: "late", Files: files})

	got, err := st.MatchLiveRounds(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != rounds {
		t.Fatalf("%d rounds stored, want %d", len(got), rounds)
	}
	for i, r := range got {
		if r.Seq != i || r.Files["state.json"] != string(rune('a'+i%26)) {
			t.Fatalf("round %d stored as %+v", i, r)
		}
	}
	next, events := 0, 0
	for next < rounds {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			t.Fatalf("after rounds up to %d: %v", next-1, err)
		}
		var ev store.MatchEvent
		if err := json.Unmarshal([]byte(n.Payload), &ev); err != nil || ev.Round == nil || ev.First == nil {
			t.Fatalf("event %s", n.Payload)
		}
		if *ev.First != next || *ev.Round < *ev.First {
			t.Fatalf("event %s after rounds up to %d", n.Payload, next-1)
		}
		next = *ev.Round + 1
		events++
	}
	if events > 2 {
		t.Errorf("%d notifications for %d rounds given at once, want at most 2", events, rounds)
	}
}

// TestLivePublisherUnwatched: the rounds of a match nobody follows are
// never published, not even by Close.
func TestLivePublisherUnwatched(t *testing.T) {
	pool := testdb.NewPool(t)
	ctx := context.Background()
	var id int64
	if err := pool.QueryRow(ctx, `INSERT INTO matches (seed, status, started_at) VALUES (1, 'running', now()) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	st := store.New(pool)
	p := newLivePublisher(ctx, st, id, slog.New(slog.DiscardHandler), 0)
	for seq := range 5 {
		p.Progress(ctx, game.RoundProgress{Seq: seq, Name: "round", Files: map[string]string{"state.json": "{}"}})
	}
	p.Close()
	if got, err := st.MatchLiveRounds(ctx, id, 0); err != nil || len(got) != 0 {
		t.Fatalf("%d rounds of an unwatched match stored (%v)", len(got), err)
	}
}

// TestLiveWatch: a match announced before it starts here is published
// from its start; one announced while it plays from then on; one whose
// announcement is older than watchFor is not.
func TestLiveWatch(t *testing.T) {
	lw := newLiveWatch()
	pub := func() *livePublisher { return newLivePublisher(context.Background(), nil, 0, nil, time.Hour) }
	watched := func(p *livePublisher) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.watched
	}
	early := pub()
	lw.heard(1)
	lw.add(1, early)
	if !watched(early) {
		t.Error("a match announced before it started here is not published")
	}
	late := pub()
	remove := lw.add(2, late)
	if watched(late) {
		t.Error("a match nobody announced is published")
	}
	lw.heard(2)
	if !watched(late) {
		t.Error("a match announced while it plays is not published")
	}
	remove()
	lw.mu.Lock()
	_, kept := lw.pubs[2]
	lw.until[3] = time.Now().Add(-time.Second)
	lw.mu.Unlock()
	if kept {
		t.Error("a removed publisher is still registered")
	}
	stale := pub()
	lw.add(3, stale)
	if watched(stale) {
		t.Error("an announcement older than watchFor still counts")
	}
}
