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

// TestLivePublisherBatches: rounds given faster than the publisher's pace
// are published together, each once and in order: the first at once, the
// rest by Close, two notifications at most for fifty rounds. A round
// given after Close is dropped, and the rule set's map may be reused.
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
	// An hour between publications: only the first round and Close publish.
	p := newLivePublisher(ctx, st, id, slog.New(slog.DiscardHandler), time.Hour)
	files := map[string]string{}
	const rounds = 50
	for seq := range rounds {
		files["state.json"] = string(rune('a' + seq%26))
		p.Progress(ctx, game.RoundProgress{Seq: seq, Name: "round", Files: files})
	}
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
