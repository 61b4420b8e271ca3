package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/board"
)

// liveHub follows the match_events channel on one database connection and
// fans each event out to the pages watching that match: a round is read
// and drawn once, however many people watch it.
type liveHub struct {
	store  *store.Store
	logger *slog.Logger

	mu      sync.Mutex
	matches map[int64]*liveMatch
	// done closes when run returns: the streams end with it, so the
	// server can shut down.
	done chan struct{}
}

// liveMatch is a running match with watchers: the rounds read so far.
type liveMatch struct {
	watchers map[chan sseEvent]struct{}
	opts     board.Options
	live     *board.Live
	next     int
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data []byte
}

// watchBuffer is how many events a slow page may fall behind before it
// misses some; it then catches up from the next round's count.
const watchBuffer = 16

func newLiveHub(st *store.Store, logger *slog.Logger) *liveHub {
	return &liveHub{store: st, logger: logger, matches: map[int64]*liveMatch{}, done: make(chan struct{})}
}

// run listens until ctx ends, reconnecting after a failure.
func (h *liveHub) run(ctx context.Context) {
	defer close(h.done)
	for {
		err := h.store.MatchEventsListen(ctx, func(ev store.MatchEvent) { h.dispatch(ctx, ev) })
		if ctx.Err() != nil {
			return
		}
		h.logger.WarnContext(ctx, "live: match events", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// watch subscribes to a match's events; names draws its boards.
func (h *liveHub) watch(id int64, opts board.Options) (chan sseEvent, func()) {
	ch := make(chan sseEvent, watchBuffer)
	h.mu.Lock()
	lm := h.matches[id]
	if lm == nil {
		lm = &liveMatch{watchers: map[chan sseEvent]struct{}{}, opts: opts, live: board.NewLive()}
		h.matches[id] = lm
	}
	lm.watchers[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(lm.watchers, ch)
		if len(lm.watchers) == 0 && h.matches[id] == lm {
			delete(h.matches, id)
		}
	}
}

func (h *liveHub) dispatch(ctx context.Context, ev store.MatchEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lm := h.matches[ev.Match]
	if lm == nil {
		return // nobody watches it here
	}
	var out sseEvent
	switch {
	case ev.Round != nil:
		data, err := h.round(ctx, ev.Match, lm)
		if err != nil {
			h.logger.WarnContext(ctx, "live: round", "match_id", ev.Match, "err", err)
			return
		}
		if data == nil {
			return
		}
		out = sseEvent{"round", data}
	case ev.Status == "running":
		// Another attempt: its rounds start again.
		lm.live, lm.next = board.NewLive(), 0
		out = sseEvent{"status", statusJSON(ev.Status)}
	default:
		out = sseEvent{"end", statusJSON(ev.Status)}
		delete(h.matches, ev.Match)
	}
	for ch := range lm.watchers {
		select {
		case ch <- out:
		default: // a page that fell behind catches up on the next round
		}
	}
}

// round reads the rounds not read yet and draws the last one.
func (h *liveHub) round(ctx context.Context, id int64, lm *liveMatch) ([]byte, error) {
	rounds, err := h.store.MatchLiveRounds(ctx, id, lm.next)
	if err != nil {
		return nil, err
	}
	for _, r := range rounds {
		if err := lm.live.Add(r.Name, r.Files); err != nil {
			return nil, err
		}
		lm.next = r.Seq + 1
	}
	rp, err := lm.live.Open()
	if err != nil {
		return nil, err
	}
	if rp.Count() == 0 {
		return nil, nil // a rule set's first state before its first step
	}
	f, err := rp.Frame(rp.Count()-1, lm.opts)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := board.Body(f).Render(ctx, &buf); err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"index": f.Index, "count": f.Count, "html": buf.String()})
}

func statusJSON(status string) []byte {
	data, _ := json.Marshal(map[string]string{"status": status})
	return data
}

// liveReplay is a running match's rounds so far, from the database.
func (h *Handler) liveReplay(ctx context.Context, m *store.MatchRow) (*board.Replay, error) {
	rounds, err := h.store.MatchLiveRounds(ctx, m.ID, 0)
	if err != nil || len(rounds) == 0 {
		return nil, err
	}
	live := board.NewLive()
	for _, r := range rounds {
		if err := live.Add(r.Name, r.Files); err != nil {
			return nil, err
		}
	}
	rp, err := live.Open()
	if err != nil || rp.Count() == 0 {
		return nil, err
	}
	return rp, nil
}

// ended reports whether a match status is final.
func ended(status string) bool {
	return status == "finished" || status == "failed" || status == "canceled"
}

// sseKeepAlive is how often an idle stream gets a comment, so proxies
// keep it open.
const sseKeepAlive = 15 * time.Second

// matchEvents is the match's server-sent event stream: "round" with each
// round's boards as it is played, "status" when another attempt starts,
// and "end" when the match is over (at once for a match already over).
func (h *Handler) matchEvents(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	viewerID := h.base(r, "").UserID
	m, err := h.matchFor(r.Context(), id, viewerID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	rc := http.NewResponseController(w)
	// The stream outlives the server's write timeout.
	_ = rc.SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(ev sseEvent) bool {
		_, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, ev.data)
		return err == nil && rc.Flush() == nil
	}
	if ended(m.Status) {
		send(sseEvent{"end", statusJSON(m.Status)})
		return
	}
	// Live rounds show the public files only: no bot's log.
	ch, stop := h.live.watch(id, board.Options{Names: viewerOptions(m, 0).Names})
	defer stop()
	// The match may have ended between reading it and watching it.
	if now, err := h.store.MatchDetailGet(r.Context(), id); err == nil && ended(now.Status) {
		send(sseEvent{"end", statusJSON(now.Status)})
		return
	}
	if !send(sseEvent{"status", statusJSON(m.Status)}) {
		return
	}
	tick := time.NewTicker(sseKeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.live.done:
			return
		case ev := <-ch:
			if !send(ev) || ev.name == "end" {
				return
			}
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

// RunLive follows running matches for the pages that watch them, until
// ctx ends. The portal runs it beside its server.
func (h *Handler) RunLive(ctx context.Context) { h.live.run(ctx) }

// playingShown is how many matches being played a page lists.
const playingShown = 5

// playing lists the matches of game (all when empty) being played now;
// the list is an extra, so a failure only leaves it out.
func (h *Handler) playing(ctx context.Context, game string) []store.MatchRow {
	ms, err := h.store.MatchRowsPlaying(ctx, game, playingShown)
	if err != nil {
		h.logger.WarnContext(ctx, "matches playing now", "err", err)
	}
	return ms
}
