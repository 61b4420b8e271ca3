package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

func TestLeaderboardCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, owner := cacheTestStore(t)
	addBot := func(name string) { cacheTestBot(t, st, owner, name) }
	clock := time.Unix(1_000_000, 0)
	c := newLeaderboardCache(2*time.Second, func() time.Time { return clock })

	addBot("first")
	if _, total, err := c.get(ctx, st, "entelect", 50, 0); err != nil || total != 1 {
		t.Fatalf("first read: total %d, %v", total, err)
	}
	addBot("second")
	clock = clock.Add(time.Second)
	if _, total, _ := c.get(ctx, st, "entelect", 50, 0); total != 1 {
		t.Fatalf("within the interval: total %d, want the cached 1", total)
	}
	if _, total, _ := c.get(ctx, st, "entelect", 10, 0); total != 2 {
		t.Fatalf("another page size is another page: total %d, want 2", total)
	}
	clock = clock.Add(2 * time.Second)
	rows, total, err := c.get(ctx, st, "entelect", 50, 0)
	if err != nil || total != 2 || len(rows) != 2 {
		t.Fatalf("after the interval: total %d, %d rows, %v; want both bots", total, len(rows), err)
	}
}

// TestLeaderboardCacheTable: the drawn table is kept like the rows it
// draws, and drawn again after the interval.
func TestLeaderboardCacheTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, owner := cacheTestStore(t)
	clock := time.Unix(1_000_000, 0)
	c := newLeaderboardCache(2*time.Second, func() time.Time { return clock })

	cacheTestBot(t, st, owner, "Pequod")
	html, total, err := c.table(ctx, st, "entelect", 50, 0)
	if err != nil || total != 1 || !strings.Contains(html, "Pequod") || !strings.Contains(html, "<table>") {
		t.Fatalf("first table: total %d, %v:\n%s", total, err, html)
	}
	cacheTestBot(t, st, owner, "Rachel")
	clock = clock.Add(time.Second)
	if html, total, _ = c.table(ctx, st, "entelect", 50, 0); total != 1 || strings.Contains(html, "Rachel") {
		t.Fatalf("within the interval: total %d, want the cached table of one bot:\n%s", total, html)
	}
	clock = clock.Add(2 * time.Second)
	if html, total, _ = c.table(ctx, st, "entelect", 50, 0); total != 2 || !strings.Contains(html, "Rachel") {
		t.Fatalf("after the interval: total %d, want both bots drawn:\n%s", total, html)
	}
}

func TestLeaderboardCacheQueue(t *testing.T) {
	ctx := context.Background()
	clock := time.Unix(1_000_000, 0)
	c := newLeaderboardCache(2*time.Second, func() time.Time { return clock })
	calls := map[string]int{}
	fetch := func(_ context.Context, game string) (*competition.LadderQueue, error) {
		calls[game]++
		return &competition.LadderQueue{Waiting: calls[game]}, nil
	}
	read := func(game string) int {
		t.Helper()
		q, err := c.queue(ctx, game, fetch)
		if err != nil {
			t.Fatal(err)
		}
		return q.Waiting
	}
	if got := read("entelect"); got != 1 {
		t.Fatalf("first read: %d", got)
	}
	clock = clock.Add(time.Second)
	if got := read("entelect"); got != 1 || calls["entelect"] != 1 {
		t.Fatalf("within the interval: %d after %d fetches, want the cached 1", got, calls["entelect"])
	}
	if got := read("brainjar"); got != 1 || calls["brainjar"] != 1 {
		t.Fatalf("another game is another queue: %d after %d fetches", got, calls["brainjar"])
	}
	clock = clock.Add(2 * time.Second)
	if got := read("entelect"); got != 2 {
		t.Fatalf("after the interval: %d, want a fresh read", got)
	}
}

// During a database outage the cache serves the page it has, however old;
// a page it never had is an error.
func TestLeaderboardCacheOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.NewPool(t)
	st := store.New(pool)
	clock := time.Unix(1_000_000, 0)
	c := newLeaderboardCache(2*time.Second, func() time.Time { return clock })
	if _, _, err := c.get(ctx, st, "entelect", 50, 0); err != nil {
		t.Fatal(err)
	}
	pool.Close()
	clock = clock.Add(time.Hour)
	if _, total, err := c.get(ctx, st, "entelect", 50, 0); err != nil || total != 0 {
		t.Fatalf("cached page during the outage: total %d, %v", total, err)
	}
	if _, _, err := c.get(ctx, st, "entelect", 10, 0); err == nil {
		t.Fatal("a page never read came from a closed database")
	}
}

func TestAcceptsGzip(t *testing.T) {
	for _, tt := range []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"gzip, deflate, br", true},
		{"br;q=1.0, GZIP;q=0.5", true},
		{"gzip;q=0", false},
		{"gzip; q=0.0, *", false},
		{"*", true},
		{"*;q=0, gzip", true},
		{"identity", false},
		{"x-gzip", false},
	} {
		if got := acceptsGzip(tt.header); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

// TestLeaderboardCacheVisitorPage: a visitor's page is drawn once per
// interval, and kept gzipped beside its HTML.
func TestLeaderboardCacheVisitorPage(t *testing.T) {
	ctx := context.Background()
	clock := time.Unix(1_000_000, 0)
	c := newLeaderboardCache(2*time.Second, func() time.Time { return clock })
	draws := 0
	draw := func(context.Context) ([]byte, error) {
		draws++
		return []byte(strings.Repeat(fmt.Sprintf("<p>drawing %d</p>", draws), 100)), nil
	}
	get := func() visitorPage {
		t.Helper()
		p, err := c.visitorPage(ctx, "leaderboard/entelect/1", draw)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(p.gzipped))
		if err != nil {
			t.Fatal(err)
		}
		if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, p.html) {
			t.Fatalf("the gzipped page is not the page (%v)", err)
		}
		if len(p.gzipped) >= len(p.html) {
			t.Errorf("gzipped %d bytes of %d", len(p.gzipped), len(p.html))
		}
		return p
	}
	first := get()
	clock = clock.Add(time.Second)
	if p := get(); draws != 1 || !bytes.Equal(p.html, first.html) {
		t.Fatalf("within the interval: %d draws", draws)
	}
	clock = clock.Add(2 * time.Second)
	if p := get(); draws != 2 || !strings.Contains(string(p.html), "drawing 2") {
		t.Fatalf("after the interval: %d draws:\n%.40s", draws, p.html)
	}
}
