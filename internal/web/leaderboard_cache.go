package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"golang.org/x/sync/singleflight"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// maxCachedEntries bounds the cache; past it, it starts afresh.
const maxCachedEntries = 4096

// leaderboardCache keeps leaderboard pages, and the ladder queue shown
// beside them, for a short time. The leaderboard is the most read page and
// changes only when a rated match ends, so a page a second or two old is
// as good, and one query per page per interval, however many readers,
// keeps the database free for matches.
type leaderboardCache struct {
	ttl   time.Duration
	now   func() time.Time
	group singleflight.Group

	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	value   any
	fetched time.Time
}

type leaderboardPage struct {
	rows  []store.LeaderboardRow
	total int
}

func newLeaderboardCache(ttl time.Duration, now func() time.Time) *leaderboardCache {
	return &leaderboardCache{ttl: ttl, now: now, entries: map[string]cacheEntry{}}
}

// get returns a page, from the cache when fresh; concurrent misses of the
// same page share one query.
func (c *leaderboardCache) get(ctx context.Context, st *store.Store, game string, limit, offset int) ([]store.LeaderboardRow, int, error) {
	v, err := c.load(ctx, fmt.Sprintf("page/%s/%d/%d", game, limit, offset), func(ctx context.Context) (any, error) {
		rows, total, err := st.LeaderboardRows(ctx, game, limit, offset)
		return leaderboardPage{rows: rows, total: total}, err
	})
	if err != nil {
		return nil, 0, err
	}
	p := v.(leaderboardPage)
	return p.rows, p.total, nil
}

// table returns a leaderboard page drawn as its table
// (page.RenderLeaderboardTable) and the number of rows of the whole
// leaderboard, from the cache when fresh: drawing the table was most of
// what a cached leaderboard cost to serve.
func (c *leaderboardCache) table(ctx context.Context, st *store.Store, game string, limit, offset int) (string, int, error) {
	v, err := c.load(ctx, fmt.Sprintf("table/%s/%d/%d", game, limit, offset), func(ctx context.Context) (any, error) {
		rows, total, err := c.get(ctx, st, game, limit, offset)
		if err != nil {
			return nil, err
		}
		html, err := page.RenderLeaderboardTable(ctx, rows)
		return drawnPage{html: html, total: total}, err
	})
	if err != nil {
		return "", 0, err
	}
	p := v.(drawnPage)
	return p.html, p.total, nil
}

type drawnPage struct {
	html  string
	total int
}

// visitorPage is a whole page as every signed-out visitor gets it, and
// the same gzipped: served from the cache, it costs neither drawing nor
// compressing.
type visitorPage struct {
	html, gzipped []byte
}

// visitorPage returns the page under key as draw makes it, from the cache
// when fresh. Its lists come from the cache too, so it may be up to two
// intervals old.
func (c *leaderboardCache) visitorPage(ctx context.Context, key string, draw func(context.Context) ([]byte, error)) (visitorPage, error) {
	v, err := c.load(ctx, "visitor/"+key, func(ctx context.Context) (any, error) {
		html, err := draw(ctx)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		if err != nil {
			return nil, err
		}
		if _, err := zw.Write(html); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		return visitorPage{html: html, gzipped: buf.Bytes()}, nil
	})
	if err != nil {
		return visitorPage{}, err
	}
	return v.(visitorPage), nil
}

// serve writes the page, gzipped for a client that accepts it. The
// compressing middleware leaves a response with a Content-Encoding alone.
func (p visitorPage) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Add("Vary", "Accept-Encoding")
	body := p.html
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = p.gzipped
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip: named
// without q=0, or, when not named, as "*" without q=0.
func acceptsGzip(header string) bool {
	star := false
	for item := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(item, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "*" {
			continue
		}
		ok := true
		if q, found := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q="); found {
			v, err := strconv.ParseFloat(q, 64)
			ok = err == nil && v > 0
		}
		if name == "gzip" {
			return ok
		}
		star = ok
	}
	return star
}

// queue returns a game's ladder queue as fetch reads it, from the cache
// when fresh.
func (c *leaderboardCache) queue(ctx context.Context, game string, fetch func(context.Context, string) (*competition.LadderQueue, error)) (*competition.LadderQueue, error) {
	v, err := c.load(ctx, "queue/"+game, func(ctx context.Context) (any, error) {
		return fetch(ctx, game)
	})
	if err != nil {
		return nil, err
	}
	return v.(*competition.LadderQueue), nil
}

// playing returns the matches being played as fetch reads them, from the
// cache when fresh: the home page and the leaderboard show them to every
// visitor. Organisers, who also see hidden battles' games, get their own.
func (c *leaderboardCache) playing(ctx context.Context, game string, withHidden bool, fetch func(context.Context) ([]store.MatchRow, error)) ([]store.MatchRow, error) {
	v, err := c.load(ctx, fmt.Sprintf("playing/%s/%t", game, withHidden), func(ctx context.Context) (any, error) {
		return fetch(ctx)
	})
	if err != nil {
		return nil, err
	}
	return v.([]store.MatchRow), nil
}

// load returns the value under key, fetching it when it is missing or
// older than the cache's interval. When the fetch fails (the database is
// down) and an older value is kept, that value is served instead: a
// leaderboard minutes old beats an error page.
func (c *leaderboardCache) load(ctx context.Context, key string, fetch func(context.Context) (any, error)) (any, error) {
	if c.ttl <= 0 {
		return fetch(ctx)
	}
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && c.now().Sub(e.fetched) < c.ttl {
		return e.value, nil
	}
	v, err, _ := c.group.Do(key, func() (any, error) {
		// The query outlives a reader who hangs up: others may be waiting on it.
		v, err := fetch(context.WithoutCancel(ctx))
		if err != nil {
			if ok {
				return e.value, nil
			}
			return nil, err
		}
		c.mu.Lock()
		if len(c.entries) >= maxCachedEntries {
			clear(c.entries)
		}
		c.entries[key] = cacheEntry{value: v, fetched: c.now()}
		c.mu.Unlock()
		return v, nil
	})
	return v, err
}
