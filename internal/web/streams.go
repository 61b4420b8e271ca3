package web

import (
	"net/http"
	"strconv"
	"sync"
)

// streamLimit bounds the requests of one kind that one client has under
// way at once: event streams (a match's live rounds, a build's log), replay
// downloads. Each costs the portal a goroutine and buffers for as long as
// it lasts; without a bound one client could hold thousands.
type streamLimit struct {
	max int

	mu   sync.Mutex
	open map[string]int
}

func newStreamLimit(max int) *streamLimit {
	return &streamLimit{max: max, open: map[string]int{}}
}

// take counts one more stream of key; release gives it back. ok is false,
// and nothing is counted, when key already holds max streams. A max of
// zero or less sets no bound.
func (l *streamLimit) take(key string) (release func(), ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.open[key] >= l.max {
		return nil, false
	}
	l.open[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.open[key]--; l.open[key] <= 0 {
				delete(l.open, key)
			}
		})
	}, true
}

// takeStream counts an event stream against the request's client (see
// clientKey); past Config.StreamsPerClient it answers 429 itself and
// returns ok false.
func (h *Handler) takeStream(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	release, ok = h.streams.take(h.clientKey(r))
	if !ok {
		w.Header().Set("Retry-After", "60")
		h.fail(w, r, refuse(http.StatusTooManyRequests,
			"Too many live views are open from your address (at most %d at once). Close some of them and reload this one.",
			h.cfg.StreamsPerClient))
	}
	return release, ok
}

// takeDownload counts a replay download against the request's client: the
// account of viewerID when logged in, else the address (see clientKey).
// Past Config.ReplayDownloadsPerClient it answers 429 itself and returns ok
// false.
func (h *Handler) takeDownload(w http.ResponseWriter, r *http.Request, viewerID int64) (release func(), ok bool) {
	key := h.clientKey(r)
	if viewerID != 0 {
		key = "account:" + strconv.FormatInt(viewerID, 10)
	}
	release, ok = h.downloads.take(key)
	if !ok {
		w.Header().Set("Retry-After", "30")
		h.fail(w, r, refuse(http.StatusTooManyRequests,
			"You already have %d replay downloads under way, the most at once. Let one finish, then try again.",
			h.cfg.ReplayDownloadsPerClient))
	}
	return release, ok
}
