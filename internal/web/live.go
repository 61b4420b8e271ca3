package web

import (
	"bytes"
	"context"
	"encoding/json"
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
	*fanout[*liveMatch]
}

// liveMatch is a running match with watchers: the rounds read so far.
type liveMatch struct {
	opts board.Options
	live *board.Live
	next int
}

func newLiveHub(st *store.Store, logger *slog.Logger) *liveHub {
	return &liveHub{store: st, logger: logger, fanout: newFanout[*liveMatch]()}
}

// watchRenew is how often the matches followed here are announced to the
// workers again (they count one as followed for 30 s after each word).
const watchRenew = 10 * time.Second

// run listens until ctx ends, reconnecting after a failure, and keeps the
// workers told which matches are followed here.
func (h *liveHub) run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		tick := time.NewTicker(watchRenew)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				h.announce(ctx, h.fanout.ids())
			}
		}
	})
	h.fanout.run(ctx, h.logger, "match events", func(ctx context.Context, ready func()) error {
		return h.store.MatchEventsListen(ctx, ready, func(ev store.MatchEvent) { h.dispatch(ctx, ev) })
	}, h.resync)
}

// resync brings the streams of match id up to date after the listener
// missed its events: the rounds published meanwhile, or the end.
func (h *liveHub) resync(ctx context.Context, id int64) {
	m, err := h.store.MatchDetailGet(ctx, id)
	if err != nil {
		h.logger.WarnContext(ctx, "live: match status", "match_id", id, "err", err)
		return
	}
	switch {
	case ended(m.Status):
		h.dispatch(ctx, store.MatchEvent{Match: id, Status: m.Status})
	case m.Status == "running":
		round := 0 // any round: the rounds are read from the last one read
		h.dispatch(ctx, store.MatchEvent{Match: id, Round: &round})
	}
}

// announce tells the workers that the matches ids are followed: a worker
// publishes a match's rounds only once somebody does.
func (h *liveHub) announce(ctx context.Context, ids []int64) {
	if len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := h.store.MatchWatchAnnounce(ctx, ids); err != nil && ctx.Err() == nil {
		h.logger.WarnContext(ctx, "live: announce followed matches", "err", err)
	}
}

// watch subscribes to a match's events, and tells the workers that the
// match is followed; opts draws its boards.
func (h *liveHub) watch(ctx context.Context, id int64, opts board.Options) (chan sseEvent, func()) {
	ch, stop := h.fanout.watch(id, func() *liveMatch { return &liveMatch{opts: opts, live: board.NewLive()} })
	h.announce(ctx, []int64{id})
	return ch, stop
}

func (h *liveHub) dispatch(ctx context.Context, ev store.MatchEvent) {
	h.deliver(ev.Match, func(lm **liveMatch) ([]sseEvent, bool) {
		switch {
		case ev.Round != nil:
			data, err := h.round(ctx, ev.Match, *lm)
			if err != nil {
				h.logger.WarnContext(ctx, "live: round", "match_id", ev.Match, "err", err)
				return nil, false
			}
			if data == nil {
				return nil, false
			}
			// A page that missed a round catches up on the next one.
			return []sseEvent{{name: "round", data: data}}, false
		case ev.Status == "running":
			// Another attempt: its rounds start again.
			(*lm).live, (*lm).next = board.NewLive(), 0
			return []sseEvent{{name: "status", data: statusJSON(ev.Status)}}, false
		default:
			return []sseEvent{{name: "end", data: statusJSON(ev.Status)}}, true
		}
	})
}

// round reads the rounds not read yet and draws the last one; nil when
// there is nothing to draw yet.
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
	release, ok := h.takeStream(w, r)
	if !ok {
		return
	}
	defer release()
	sse := startSSE(w)
	if ended(m.Status) {
		sse.send(sseEvent{name: "end", data: statusJSON(m.Status)})
		return
	}
	// Live rounds show the public files only: no bot's log.
	ch, stop := h.live.watch(r.Context(), id, board.Options{Names: h.viewerOptions(m, 0).Names})
	defer stop()
	// The match may have ended between reading it and watching it.
	if now, err := h.store.MatchDetailGet(r.Context(), id); err == nil && ended(now.Status) {
		sse.send(sseEvent{name: "end", data: statusJSON(now.Status)})
		return
	}
	if !sse.send(sseEvent{name: "status", data: statusJSON(m.Status)}) {
		return
	}
	sse.follow(r.Context(), ch, h.live.done, nil)
}

// RunLive follows running matches for the pages that watch them, until
// ctx ends. The portal runs it beside its server.
func (h *Handler) RunLive(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { h.builds.run(ctx) })
	wg.Go(func() { h.duelLive.run(ctx) })
	h.live.run(ctx)
	wg.Wait()
}

// playingShown is how many matches being played a page lists.
const playingShown = 5

// playing lists the matches of game (all when empty) being played now,
// the games of hidden battles for organisers only; the list is an extra,
// so a failure only leaves it out.
func (h *Handler) playing(r *http.Request, game string) []store.MatchRow {
	return h.playingNow(r.Context(), game, seesHidden(r))
}

// playingNow is playing for a visitor who sees the hidden battles' games
// (withHidden) or not.
func (h *Handler) playingNow(ctx context.Context, game string, withHidden bool) []store.MatchRow {
	ms, err := h.board.playing(ctx, game, withHidden, func(ctx context.Context) ([]store.MatchRow, error) {
		return h.store.MatchRowsPlaying(ctx, game, playingShown, withHidden)
	})
	if err != nil {
		h.logger.WarnContext(ctx, "matches playing now", "err", err)
	}
	return ms
}
