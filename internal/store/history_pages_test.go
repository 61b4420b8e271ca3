package store_test

import (
	"slices"
	"testing"

	"github.com/broadside/broadside/internal/store"
)

// TestBotHistoryPages pages through a bot's history at several page
// sizes: the pages together are its matches, newest first, each once,
// with the first opponent and the count of further seats read from each
// match's other seats.
func TestBotHistoryPages(t *testing.T) {
	b := setup(t)
	x, _ := b.builtBot(t, "entelect")
	y, _ := b.builtBot(t, "entelect")
	z, _ := b.builtBot(t, "entelect")

	// Newest first: what each match looks like from x's side.
	type want struct {
		id       int64
		opponent int64
		others   int
		outcome  string
		points   int
	}
	var wants []want
	for i := range 6 {
		var m *store.MatchRow
		switch i % 3 {
		case 0: // x in seat 0 against y
			m = b.match(t, false, x.ID, y.ID)
			b.finishAs(t, m.ID, "win", "loss")
			wants = append(wants, want{m.ID, y.ID, 0, "win", 10})
		case 1: // x in seat 1 against z
			m = b.match(t, false, z.ID, x.ID)
			b.finishAs(t, m.ID, "win", "loss")
			wants = append(wants, want{m.ID, z.ID, 0, "loss", 11})
		case 2: // a free-for-all: y is the first other seat, z one more
			m = b.match(t, false, y.ID, x.ID, z.ID)
			b.finishAs(t, m.ID, "loss", "win", "loss")
			wants = append(wants, want{m.ID, y.ID, 1, "win", 11})
		}
	}
	queued := b.match(t, false, x.ID, z.ID)
	wants = append(wants, want{queued.ID, z.ID, 0, "", 0})
	slices.Reverse(wants)

	for _, size := range []int{1, 2, 3, 5, 7, 10} {
		var got []store.HistoryRow
		for offset := 0; ; offset += size {
			page, err := b.st.BotHistory(b.ctx, x.ID, size, offset, false)
			if err != nil {
				t.Fatalf("page size %d, offset %d: %v", size, offset, err)
			}
			if len(page) > size {
				t.Fatalf("page size %d, offset %d: %d rows", size, offset, len(page))
			}
			got = append(got, page...)
			if len(page) < size {
				break
			}
		}
		if len(got) != len(wants) {
			t.Fatalf("page size %d: %d rows in all, want %d", size, len(got), len(wants))
		}
		for i, w := range wants {
			g := got[i]
			if g.MatchID != w.id || g.BotID != x.ID || g.OpponentID != w.opponent || g.Others != w.others ||
				g.Outcome != w.outcome || g.Points != w.points {
				t.Errorf("page size %d, row %d: match %d opponent %d others %d outcome %q points %d; want %+v",
					size, i, g.MatchID, g.OpponentID, g.Others, g.Outcome, g.Points, w)
			}
		}
	}
}
