package web

import (
	"sync"
	"time"
)

// limiter counts failures per key in a fixed window, for the login rate
// limit. It lives in one portal process; with several portals behind a
// balancer each one limits on its own, which still bounds guessing.
type limiter struct {
	max    int
	window time.Duration

	mu   sync.Mutex
	hits map[string]*window
}

type window struct {
	start time.Time
	n     int
}

func newLimiter(max int, win time.Duration) *limiter {
	return &limiter{max: max, window: win, hits: map[string]*window{}}
}

// blocked reports whether key used up its failures, and until when.
func (l *limiter) blocked(key string, now time.Time) (bool, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.hits[key]
	if !ok || now.Sub(w.start) >= l.window {
		return false, time.Time{}
	}
	return w.n >= l.max, w.start.Add(l.window)
}

// fail counts one failure of key.
func (l *limiter) fail(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.hits) > 100_000 {
		l.sweep(now)
	}
	w, ok := l.hits[key]
	if !ok || now.Sub(w.start) >= l.window {
		l.hits[key] = &window{start: now, n: 1}
		return
	}
	w.n++
}

// reset forgets key's failures after a success.
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
