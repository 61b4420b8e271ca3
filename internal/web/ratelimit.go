package web

import (
	"sync"
	"time"
)

// limiter counts attempts per key in a fixed window, for the log-in and
// registration rate limits. It lives in one portal process; with several
// portals behind a balancer each one limits on its own, which still bounds
// guessing.
//
// An attempt is counted before it is checked (take), so parallel requests
// cannot all pass a check made before any of them failed; one that turns
// out not to be a failure gives its own attempt back (give), which never
// forgets anyone else's failures.
type limiter struct {
	window time.Duration

	mu   sync.Mutex
	hits map[string]*window
}

type window struct {
	start time.Time
	n     int
}

// quota is one key's allowance within the limiter's window.
type quota struct {
	key string
	max int
}

func newLimiter(win time.Duration) *limiter {
	return &limiter{window: win, hits: map[string]*window{}}
}

// take counts one attempt against every quota at once, or against none when
// any of them is used up; then it reports false and when the last block
// ends. A quota whose max is zero or less is not limited.
func (l *limiter) take(now time.Time, qs ...quota) (bool, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.hits) > 100_000 {
		l.sweep(now)
	}
	var until time.Time
	for _, q := range qs {
		w, ok := l.hits[q.key]
		if q.max > 0 && ok && now.Sub(w.start) < l.window && w.n >= q.max {
			if end := w.start.Add(l.window); end.After(until) {
				until = end
			}
		}
	}
	if !until.IsZero() {
		return false, until
	}
	for _, q := range qs {
		w, ok := l.hits[q.key]
		if !ok || now.Sub(w.start) >= l.window {
			l.hits[q.key] = &window{start: now, n: 1}
			continue
		}
		w.n++
	}
	return true, time.Time{}
}

// give returns one attempt of key taken by a request that did not fail.
func (l *limiter) give(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if w, ok := l.hits[key]; ok && w.n > 0 {
		w.n--
	}
}

// reset forgets key's attempts (an account's own successful log-in).
func (l *limiter) reset(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.hits, key)
}

// sweep drops windows that have passed, so the map stays bounded.
func (l *limiter) sweep(now time.Time) {
	for k, w := range l.hits {
		if now.Sub(w.start) >= l.window {
			delete(l.hits, k)
		}
	}
}
