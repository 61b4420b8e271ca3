package store_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// finishAs records a started match's result with outcomes by seat.
func (b *testBundle) finishAs(t *testing.T, matchID int64, outcomes ...string) {
	t.Helper()
	if _, err := b.st.MatchStart(b.ctx, matchID); err != nil {
		t.Fatal(err)
	}
	p := store.MatchFinishParams{ID: matchID, Rounds: 1, Summary: json.RawMessage(`{}`)}
	for i, o := range outcomes {
		p.Players = append(p.Players, store.MatchPlayerResult{Seat: i, Points: 10 + i, Outcome: o, Rank: i + 1})
	}
	if err := b.st.MatchFinish(b.ctx, p); err != nil {
		t.Fatal(err)
	}
}

func TestHistoryQueries(t *testing.T) {
	b := setup(t)
	x, _ := b.builtBot(t, "entelect")
	y, _ := b.builtBot(t, "entelect")
	z, _ := b.builtBot(t, "entelect")

	m1 := b.match(t, true, x.ID, y.ID)
	b.finishAs(t, m1.ID, "win", "loss")
	if _, err := b.st.RatingsLock(b.ctx, "entelect", []int64{x.ID, y.ID}, store.RatingState{Rating: 1500, Deviation: 350, Volatility: 0.06}); err != nil {
		t.Fatal(err)
	}
	if err := b.st.RatingApply(b.ctx, m1.ID, "entelect", "glicko2", []store.RatingChange{
		{BotID: x.ID, Outcomes: []string{"win"}, Before: store.RatingState{Rating: 1500, Deviation: 350}, After: store.RatingState{Rating: 1662, Deviation: 290}},
		{BotID: y.ID, Outcomes: []string{"loss"}, Before: store.RatingState{Rating: 1500, Deviation: 350}, After: store.RatingState{Rating: 1338, Deviation: 290}},
	}); err != nil {
		t.Fatal(err)
	}
	m2 := b.match(t, false, y.ID, x.ID)
	b.finishAs(t, m2.ID, "draw", "draw")
	m3 := b.match(t, false, x.ID, z.ID) // still queued

	t.Run("a bot's history, newest first, with the rating change of rated matches", func(t *testing.T) {
		rows, err := b.st.BotHistory(b.ctx, x.ID, 10, 0, false)
		if err != nil || len(rows) != 3 {
			t.Fatalf("%d rows, %v", len(rows), err)
		}
		if rows[0].MatchID != m3.ID || rows[0].Status != "queued" || rows[0].OpponentID != z.ID || rows[0].Rated() {
			t.Errorf("newest row %+v", rows[0])
		}
		if rows[1].MatchID != m2.ID || rows[1].Outcome != "draw" || rows[1].OpponentID != y.ID || rows[1].Points != 11 || rows[1].OpponentPoints != 10 {
			t.Errorf("the draw, from x's seat B: %+v", rows[1])
		}
		if rows[2].MatchID != m1.ID || !rows[2].Rated() || rows[2].RatingChange() != 162 {
			t.Errorf("the rated win %+v", rows[2])
		}
		if page, _ := b.st.BotHistory(b.ctx, x.ID, 1, 1, false); len(page) != 1 || page[0].MatchID != m2.ID {
			t.Errorf("the second page of one %+v", page)
		}
	})

	t.Run("the rating history starts from the rating before the first rated match", func(t *testing.T) {
		pts, err := b.st.RatingHistory(b.ctx, y.ID, 10)
		if err != nil || len(pts) != 2 || pts[0].Rating != 1500 || pts[1].Rating != 1338 || pts[1].MatchID != m1.ID {
			t.Fatalf("%+v, %v", pts, err)
		}
		if pts, _ := b.st.RatingHistory(b.ctx, z.ID, 10); len(pts) != 0 {
			t.Fatalf("an unrated bot has points %+v", pts)
		}
	})

	t.Run("head to head counts finished matches only, from a's side", func(t *testing.T) {
		h, ms, err := b.st.HeadToHeadGet(b.ctx, y.ID, x.ID, 10, false)
		want := store.HeadToHead{Games: 2, AWins: 0, BWins: 1, Draws: 1, APoints: 21, BPoints: 21}
		if err != nil || *h != want || len(ms) != 2 || ms[0].ID != m2.ID {
			t.Fatalf("%+v, %d matches, %v", h, len(ms), err)
		}
	})

	t.Run("a hidden battle's game leaves only its own players' histories", func(t *testing.T) {
		battle, err := b.st.BattleCreate(b.ctx, store.BattleCreateParams{Name: "Secret", OrganiserID: z.OwnerID, Format: "round_robin",
			Game: "entelect", MapSize: 1, GamesPerPairing: 1, StartAt: time.Now(), EntryDeadline: time.Now(), ResultsHidden: true})
		if err != nil {
			t.Fatal(err)
		}
		hidden := b.match(t, false, y.ID, z.ID)
		if err := b.st.BattleGameAdd(b.ctx, battle, 1, nil, 1, hidden.ID); err != nil {
			t.Fatal(err)
		}
		b.finishAs(t, hidden.ID, "win", "loss")
		// x played no part in the hidden game: its history is whole.
		if rows, err := b.st.BotHistory(b.ctx, x.ID, 10, 0, false); err != nil || len(rows) != 3 {
			t.Fatalf("x's history beside a hidden game elsewhere: %d rows, %v", len(rows), err)
		}
		for _, c := range []struct {
			withHidden bool
			want       int
		}{{false, 2}, {true, 3}} {
			rows, err := b.st.BotHistory(b.ctx, y.ID, 10, 0, c.withHidden)
			if err != nil || len(rows) != c.want {
				t.Errorf("y's history, withHidden %v: %d rows, want %d (%v)", c.withHidden, len(rows), c.want, err)
			}
		}
	})

	t.Run("a clan's history has a row for each of its bots in a match", func(t *testing.T) {
		owner := x.OwnerID
		clan, err := b.st.ClanCreate(b.ctx, "Kraken", "", "key", owner)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.st.ClanJoin(b.ctx, clan.ID, y.OwnerID); err != nil {
			t.Fatal(err)
		}
		rows, err := b.st.ClanHistory(b.ctx, clan.ID, 10, 0, false)
		if err != nil || len(rows) != 5 {
			t.Fatalf("%d rows, %v", len(rows), err)
		}
		bots, err := b.st.ClanBots(b.ctx, clan.ID)
		if err != nil || len(bots) != 2 || bots[0].Rating == nil {
			t.Fatalf("clan bots %+v, %v", bots, err)
		}
	})
}
