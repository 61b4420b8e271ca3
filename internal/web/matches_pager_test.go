package web_test

import (
	"fmt"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/store"
)

var pagerLinkPattern = regexp.MustCompile(`<a href="(\?[^"]*)" rel="(prev|next)">`)

// pagerLinks are a list page's links to the previous and next pages,
// empty when it has none.
func pagerLinks(body string) (prev, next string) {
	for _, m := range pagerLinkPattern.FindAllStringSubmatch(body, -1) {
		if m[2] == "prev" {
			prev = html.UnescapeString(m[1])
		} else {
			next = html.UnescapeString(m[1])
		}
	}
	return prev, next
}

// annsFleet registers ann, logged in on the browser returned, with three
// built bots (Ahab, Nemo, Moby: id and version each).
func (b *testBundle) annsFleet(t *testing.T) (*browser, int64, [3][2]int64) {
	t.Helper()
	visitor := b.browser(t)
	visitor.register("ann")
	annID := b.userID(t, "ann")
	var bots [3][2]int64
	for i, name := range []string{"Ahab", "Nemo", "Moby"} {
		bots[i][0], bots[i][1] = b.builtBot(t, annID, name)
	}
	return visitor, annID, bots
}

// TestMatchesPager follows the match list's Older links to its end and
// its Newer links back, with and without filters: each page holds the
// next matches newest first, every match once, and an old ?page= link
// shows the page the links lead to.
func TestMatchesPager(t *testing.T) {
	b := setup(t, nil)
	visitor, _, bots := b.annsFleet(t)
	ahab, av, nemo, nv, moby, mv := bots[0][0], bots[0][1], bots[1][0], bots[1][1], bots[2][0], bots[2][1]
	var all, mobys []int64
	for i := range 121 {
		other, ov := nemo, nv
		if i%2 == 1 {
			other, ov = moby, mv
		}
		m, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: 1, Kind: "ladder",
			Players: []store.MatchPlayerParams{{BotID: ahab, BotVersionID: av}, {BotID: other, BotVersionID: ov}}})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m.ID)
		if other == moby {
			mobys = append(mobys, m.ID)
		}
	}
	slices.Reverse(all)
	slices.Reverse(mobys)

	for _, c := range []struct {
		name   string
		filter string
		want   []int64
	}{
		{"all matches", "", all},
		{"one game", "game=entelect", all},
		{"one bot's", fmt.Sprintf("bot=%d", ahab), all},
		{"another bot's, fewer", fmt.Sprintf("bot=%d", moby), mobys},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := "/matches"
			if c.filter != "" {
				path += "?" + c.filter
			}
			// Older, to the end.
			var pages [][]int64
			var got []int64
			for {
				res := visitor.get(path)
				if res.status != http.StatusOK {
					t.Fatalf("GET %s: status %d", path, res.status)
				}
				ids := htmlMatchIDs(t, visitor, path)
				if len(ids) == 0 || len(ids) > 50 {
					t.Fatalf("%s: %d matches", path, len(ids))
				}
				if want := fmt.Sprintf("Page %d", len(pages)+1); !strings.Contains(res.body, want) {
					t.Errorf("%s is not labelled %s", path, want)
				}
				pages, got = append(pages, ids), append(got, ids...)
				_, next := pagerLinks(res.body)
				if next == "" {
					break
				}
				if !strings.Contains(next, "before=") || (c.filter != "" && !strings.Contains(next, c.filter)) {
					t.Fatalf("the next link %q pages by id and keeps the filter %q", next, c.filter)
				}
				path = "/matches" + next
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("the pages list %d matches %v, want %d newest first", len(got), got, len(c.want))
			}
			// Newer, back to the first.
			for i := len(pages) - 1; i > 0; i-- {
				prev, _ := pagerLinks(visitor.get(path).body)
				if prev == "" {
					t.Fatalf("page %d has no link to page %d", i+1, i)
				}
				path = "/matches" + prev
				if ids := htmlMatchIDs(t, visitor, path); !slices.Equal(ids, pages[i-1]) {
					t.Fatalf("back on page %d (%s): %v, want %v", i, path, ids, pages[i-1])
				}
			}
			if prev, _ := pagerLinks(visitor.get(path).body); prev != "" {
				t.Fatalf("the first page (%s) links to a newer one: %s", path, prev)
			}
			// An old link by page number shows the same page.
			sep := "?"
			if c.filter != "" {
				sep = "?" + c.filter + "&"
			}
			last := len(pages)
			if ids := htmlMatchIDs(t, visitor, fmt.Sprintf("/matches%spage=%d", sep, last)); !slices.Equal(ids, pages[last-1]) {
				t.Fatalf("?page=%d: %v, want %v", last, ids, pages[last-1])
			}
		})
	}
}
