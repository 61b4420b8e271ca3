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

func TestLeaderboardRows(t *testing.T) {
	b := setup(t)
	// Conservative ratings: strong 1700-2*50 = 1600, weak 1100-2*100 = 900,
	// fragile 1400-2*300 = 800 (ties the unrated start but ranks as rated).
	strong, _ := b.builtBot(t, "hitandsunk")
	weak, _ := b.builtBot(t, "hitandsunk")
	fragile, _ := b.builtBot(t, "hitandsunk")
	newA, _ := b.builtBot(t, "hitandsunk")
	newB, _ := b.builtBot(t, "hitandsunk")
	off, _ := b.builtBot(t, "hitandsunk")
	for _, r := range []store.RatingState{
		{BotID: weak.ID, Rating: 1100, Deviation: 100, Games: 9, Wins: 2, Losses: 7},
		{BotID: strong.ID, Rating: 1700, Deviation: 50, Games: 30, Wins: 25, Losses: 5},
		{BotID: fragile.ID, Rating: 1400, Deviation: 300, Games: 1, Wins: 1},
		{BotID: off.ID, Rating: 2500, Deviation: 30},
	} {
		r.Ladder, r.Volatility = "hitandsunk", 0.06
		if err := b.st.RatingReplace(b.ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.st.BotSetDisabled(b.ctx, off.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.BotCreate(b.ctx, store.BotCreateParams{OwnerID: b.user(t), Name: "unbuilt", Game: "hitandsunk"}); err != nil {
		t.Fatal(err)
	}

	// Rated bots by conservative rating, then the unrated by id; disabled
	// and unbuilt bots are not listed.
	want := []int64{strong.ID, weak.ID, fragile.ID, newA.ID, newB.ID}
	all, total, err := b.st.LeaderboardRows(b.ctx, "hitandsunk", 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != len(want) || len(all) != len(want) {
		t.Fatalf("total %d, %d rows; want %d", total, len(all), len(want))
	}
	for i, id := range want {
		if all[i].BotID != id || all[i].Rank != i+1 {
			t.Fatalf("row %d: bot %d rank %d, want bot %d rank %d", i, all[i].BotID, all[i].Rank, id, i+1)
		}
	}
	if all[0].Conservative() != 1600 || all[0].Wins != 25 || all[3].Rating.Rating != 1500 || all[3].Deviation != 350 || all[3].Games != 0 {
		t.Fatalf("rows %+v", all)
	}
	// A page across the rated and unrated parts.
	page, _, err := b.st.LeaderboardRows(b.ctx, "hitandsunk", 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 || page[0].BotID != fragile.ID || page[1].BotID != newA.ID || page[0].Rank != 3 {
		t.Fatalf("page 2 of 2: %+v", page)
	}
}
