package store_test

import (
	"errors"
	"testing"

	"github.com/broadside/broadside/internal/store"
)

var start = store.RatingState{Rating: 1500, Deviation: 350, Volatility: 0.06}

func TestRatings(t *testing.T) {
	t.Run("lock creates missing ratings, apply records events and counts", func(t *testing.T) {
		b := setup(t)
		a, _ := b.builtBot(t, "entelect")
		c, _ := b.builtBot(t, "entelect")
		m := b.match(t, true, a.ID, c.ID)
		got, err := b.st.RatingsLock(b.ctx, "entelect", []int64{c.ID, a.ID, a.ID}, start)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[a.ID].Rating != 1500 || got[c.ID].Volatility != 0.06 {
			t.Fatalf("got %+v", got)
		}
		changes := []store.RatingChange{
			{BotID: a.ID, Before: got[a.ID], After: store.RatingState{Rating: 1662.3, Deviation: 290.3, Volatility: 0.06}, Outcomes: []string{"win"}},
			{BotID: c.ID, Before: got[c.ID], After: store.RatingState{Rating: 1337.7, Deviation: 290.3, Volatility: 0.06}, Outcomes: []string{"loss"}},
		}
		if err := b.st.RatingApply(b.ctx, m.ID, "entelect", "glicko2", changes); err != nil {
			t.Fatal(err)
		}
		ra, err := b.st.RatingGet(b.ctx, a.ID, "entelect")
		if err != nil {
			t.Fatal(err)
		}
		if ra.Rating != 1662.3 || ra.Games != 1 || ra.Wins != 1 || ra.Losses != 0 || ra.LastGameAt == nil {
			t.Fatalf("got %+v", ra)
		}
		// Applying the same match again is refused by rating_events.
		err = b.st.RatingApply(b.ctx, m.ID, "entelect", "glicko2", changes)
		if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second apply: got %v, want ErrConflict", err)
		}
		ra2, _ := b.st.RatingGet(b.ctx, a.ID, "entelect")
		if ra2.Games != 1 {
			t.Fatalf("second apply counted: %+v", ra2)
		}
	})
	t.Run("apply without lock is refused", func(t *testing.T) {
		b := setup(t)
		a, _ := b.builtBot(t, "entelect")
		c, _ := b.builtBot(t, "entelect")
		m := b.match(t, true, a.ID, c.ID)
		err := b.st.RatingApply(b.ctx, m.ID, "entelect", "glicko2", []store.RatingChange{{BotID: a.ID, Outcomes: []string{"win"}}})
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("history replays matches in application order", func(t *testing.T) {
		b := setup(t)
		a, _ := b.builtBot(t, "entelect")
		c, _ := b.builtBot(t, "entelect")
		m1 := b.match(t, true, a.ID, c.ID)
		m2 := b.match(t, true, c.ID, a.ID)
		for _, m := range []int64{m2.ID, m1.ID} { // applied out of creation order
			if _, err := b.st.RatingsLock(b.ctx, "entelect", []int64{a.ID, c.ID}, start); err != nil {
				t.Fatal(err)
			}
			if err := b.st.MatchFinish(b.ctx, store.MatchFinishParams{ID: m, Players: []store.MatchPlayerResult{
				{Seat: 0, Outcome: "win", Rank: 1}, {Seat: 1, Outcome: "loss", Rank: 2}}}); err != nil {
				t.Fatal(err)
			}
			ch := []store.RatingChange{{BotID: a.ID, After: start, Outcomes: []string{"win"}}, {BotID: c.ID, After: start, Outcomes: []string{"loss"}}}
			if err := b.st.RatingApply(b.ctx, m, "entelect", "glicko2", ch); err != nil {
				t.Fatal(err)
			}
		}
		var seen []store.RatedMatch
		if err := b.st.RatedMatchHistory(b.ctx, func(r store.RatedMatch) error { seen = append(seen, r); return nil }); err != nil {
			t.Fatal(err)
		}
		// The shared transaction database may hold other tests' committed
		// rows: none, as every test rolls back, so exactly ours appear.
		if len(seen) != 2 || seen[0].MatchID != m2.ID || seen[1].MatchID != m1.ID {
			t.Fatalf("got %+v", seen)
		}
		if p := seen[0].Games[0].Players; len(seen[0].Games) != 1 || len(p) != 2 || p[0].BotID != c.ID || p[0].Rank != 1 || p[1].Outcome != "loss" {
			t.Fatalf("players %+v", p)
		}
	})
}
