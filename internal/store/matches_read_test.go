package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
)

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
