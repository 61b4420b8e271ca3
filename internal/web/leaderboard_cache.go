package web

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/broadside/broadside/internal/store"
)

// maxCachedPages bounds the cache; past it, it starts afresh.
const maxCachedPages = 4096

// leaderboardCache keeps leaderboard pages for a short time. The
// leaderboard is the most read page and changes only when a rated match
// ends, so a page a second or two old is as good, and one query per page
// per interval, however many readers, keeps the database free for matches.
type leaderboardCache struct {
	ttl   time.Duration
	now   func() time.Time
	group singleflight.Group

	mu    sync.Mutex
	pages map[string]leaderboardPage
}

type leaderboardPage struct {
	rows    []store.LeaderboardRow
	total   int
	fetched time.Time
}

func newLeaderboardCache(ttl time.Duration, now func() time.Time) *leaderboardCache {
	return &leaderboardCache{ttl: ttl, now: now, pages: map[string]leaderboardPage{}}
}

// get returns a page, from the cache when fresh; concurrent misses of the
// same page share one query.
func (c *leaderboardCache) get(ctx context.Context, st *store.Store, game string, limit, offset int) ([]store.LeaderboardRow, int, error) {
	if c.ttl <= 0 {
		return st.LeaderboardRows(ctx, game, limit, offset)
	}
	key := fmt.Sprintf("%s/%d/%d", game, limit, offset)
	c.mu.Lock()
	p, ok := c.pages[key]
	c.mu.Unlock()
	if ok && c.now().Sub(p.fetched) < c.ttl {
		return p.rows, p.total, nil
	}
	v, err, _ := c.group.Do(key, func() (any, error) {
		// The query outlives a reader who hangs up: others may be waiting on it.
		rows, total, err := st.LeaderboardRows(context.WithoutCancel(ctx), game, limit, offset)
		if err != nil {
			return nil, err
		}
		p := leaderboardPage{rows: rows, total: total, fetched: c.now()}
		c.mu.Lock()
		if len(c.pages) >= maxCachedPages {
			clear(c.pages)
		}
		c.pages[key] = p
		c.mu.Unlock()
		return p, nil
	})
	if err != nil {
		return nil, 0, err
	}
	p = v.(leaderboardPage)
	return p.rows, p.total, nil
}
