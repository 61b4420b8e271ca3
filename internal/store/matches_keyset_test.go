package store_test

import (
	"slices"
	"testing"

	"github.com/broadside/broadside/internal/store"
)

// TestMatchRowsByID pages match lists by id: Before keeps the older ones,
// After the nearest newer ones, both newest first, with or without the
// seat filters.
func TestMatchRowsByID(t *testing.T) {
	b := setup(t)
	x, _ := b.builtBot(t, "entelect")
	y, _ := b.builtBot(t, "entelect")
	var ids []int64 // newest first
	for range 7 {
		ids = append([]int64{b.match(t, false, x.ID, y.ID).ID}, ids...)
	}
	for _, c := range []struct {
		name string
		p    store.MatchListParams
		want []int64
	}{
		{"before", store.MatchListParams{Limit: 2, Before: ids[3]}, ids[4:6]},
		{"before, to the end", store.MatchListParams{Limit: 5, Before: ids[3]}, ids[4:]},
		{"after: the nearest newer", store.MatchListParams{Limit: 2, After: ids[3]}, ids[1:3]},
		{"after, to the newest", store.MatchListParams{Limit: 5, After: ids[3]}, ids[:3]},
		{"a bot's, before", store.MatchListParams{Limit: 2, Before: ids[3], BotID: x.ID}, ids[4:6]},
		{"a bot's, after", store.MatchListParams{Limit: 2, After: ids[3], BotID: y.ID}, ids[1:3]},
		{"between", store.MatchListParams{Limit: 10, Before: ids[1], After: ids[4]}, ids[2:4]},
	} {
		rows, err := b.st.MatchRows(b.ctx, c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []int64
		for _, m := range rows {
			got = append(got, m.ID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
