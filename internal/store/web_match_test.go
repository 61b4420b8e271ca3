package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
)

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

func TestMatchRowsFilters(t *testing.T) {
	b := setup(t)
	a, _ := b.builtBot(t, "entelect")
	z, _ := b.builtBot(t, "entelect")
	entelect := b.match(t, false, a.ID, z.ID)
	c, cv := b.builtBot(t, "brainjar")
	d, dv := b.builtBot(t, "brainjar")
	brainjar, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{Game: "brainjar", MapSize: 1, Seed: 7, Kind: "challenge",
		Players: []store.MatchPlayerParams{{BotID: c.ID, BotVersionID: cv}, {BotID: d.ID, BotVersionID: dv}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.MatchFinish(b.ctx, store.MatchFinishParams{ID: entelect.ID, Rounds: 1, Summary: []byte(`{}`),
		Players: []store.MatchPlayerResult{{Seat: 0, Key: "A", Outcome: "win", Rank: 1}, {Seat: 1, Key: "B", Outcome: "loss", Rank: 2}}}); err != nil {
		t.Fatal(err)
	}
	yes, no := true, false

	ids := func(p store.MatchListParams) []int64 {
		t.Helper()
		p.Limit = 50
		rows, err := b.st.MatchRows(b.ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, r := range rows {
			if r.ID == entelect.ID || r.ID == brainjar.ID {
				out = append(out, r.ID)
			}
		}
		return out
	}
	cases := []struct {
		name string
		p    store.MatchListParams
		want []int64
	}{
		{"no filter", store.MatchListParams{}, []int64{brainjar.ID, entelect.ID}},
		{"game", store.MatchListParams{Game: "brainjar"}, []int64{brainjar.ID}},
		{"bot", store.MatchListParams{BotID: a.ID}, []int64{entelect.ID}},
		{"bot and its game", store.MatchListParams{BotID: a.ID, Game: "entelect"}, []int64{entelect.ID}},
		{"bot and another game", store.MatchListParams{BotID: a.ID, Game: "brainjar"}, nil},
		{"owner", store.MatchListParams{OwnerID: c.OwnerID}, []int64{brainjar.ID}},
		{"owner who won", store.MatchListParams{OwnerID: a.OwnerID, Outcome: "win"}, []int64{entelect.ID}},
		{"owner who lost", store.MatchListParams{OwnerID: z.OwnerID, Outcome: "loss"}, []int64{entelect.ID}},
		{"owner who did not lose", store.MatchListParams{OwnerID: a.OwnerID, Outcome: "loss"}, nil},
		{"bot that won", store.MatchListParams{BotID: a.ID, Outcome: "win"}, []int64{entelect.ID}},
		{"kind", store.MatchListParams{Kind: "challenge"}, []int64{brainjar.ID}},
		{"owner and kind", store.MatchListParams{OwnerID: a.OwnerID, Kind: "challenge"}, nil},
		{"ranked", store.MatchListParams{Ranked: &yes}, nil},
		{"unranked", store.MatchListParams{Ranked: &no}, []int64{brainjar.ID, entelect.ID}},
		{"since long ago", store.MatchListParams{Since: time.Now().Add(-time.Hour)}, []int64{brainjar.ID, entelect.ID}},
		{"since later", store.MatchListParams{OwnerID: a.OwnerID, Since: time.Now().Add(time.Hour)}, nil},
	}
	for _, c := range cases {
		if got := ids(c.p); !slices.Equal(got, c.want) {
			t.Errorf("%s: matches %v, want %v", c.name, got, c.want)
		}
	}
}
