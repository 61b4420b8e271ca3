package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// TestMatchLiveRoundsAdd: rounds given together are stored in one
// statement and announced by one event naming the first and the last; a
// seq given twice keeps its last files; nothing is stored or announced
// for a match that is not running.
func TestMatchLiveRoundsAdd(t *testing.T) {
	pool := testdb.NewPool(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := &testBundle{ctx: ctx, st: store.New(pool)}
	a, _ := b.builtBot(t, "entelect")
	c, _ := b.builtBot(t, "entelect")
	m := b.match(t, false, a.ID, c.ID)
	st := store.New(pool)

	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN match_events"); err != nil {
		t.Fatal(err)
	}
	round := func(seq int, text string) store.LiveRound {
		return store.LiveRound{Seq: seq, Name: "Phase 1 - Round " + text, Files: map[string]string{"state.json": text}}
	}
	// Queued: its rounds would belong to no attempt.
	if err := st.MatchLiveRoundsAdd(ctx, m.ID, []store.LiveRound{round(0, "0")}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.MatchStart(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	batches := [][]store.LiveRound{
		{round(0, "0")},
		{round(1, "1"), round(2, "x"), round(2, "2"), round(3, "3")},
		{},
	}
	for _, batch := range batches {
		if err := st.MatchLiveRoundsAdd(ctx, m.ID, batch); err != nil {
			t.Fatal(err)
		}
	}
	// Events in order: the start, then one per batch that held rounds.
	want := []store.MatchEvent{{Match: m.ID, Status: "running"}, {Match: m.ID, Round: ptr(0), First: ptr(0)}, {Match: m.ID, Round: ptr(3), First: ptr(1)}}
	for i, w := range want {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		var got store.MatchEvent
		if err := json.Unmarshal([]byte(n.Payload), &got); err != nil {
			t.Fatal(err)
		}
		if got.Match != w.Match || got.Status != w.Status || !sameInt(got.Round, w.Round) || !sameInt(got.First, w.First) {
			t.Fatalf("event %d: %s, want %+v", i, n.Payload, w)
		}
	}
	short, cancelShort := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancelShort()
	if n, err := conn.Conn().WaitForNotification(short); err == nil {
		t.Fatalf("an event more: %s", n.Payload)
	}
	rounds, err := st.MatchLiveRounds(ctx, m.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 4 {
		t.Fatalf("%d rounds stored: %+v", len(rounds), rounds)
	}
	for i, r := range rounds {
		if r.Seq != i || r.Files["state.json"] != []string{"0", "1", "2", "3"}[i] {
			t.Errorf("round %d: %+v", i, r)
		}
	}
}

func ptr(n int) *int { return &n }

func sameInt(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
