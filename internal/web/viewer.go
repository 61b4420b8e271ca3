package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/board"
	"github.com/broadside/broadside/web/page"
)

// viewerOptions draws a match's boards for one viewer: the portal's bot
// names with their owners (two seats may share a starter's name), and
// each bot's own log, step by step, for its owner only, as the match page
// shows match logs. m's logs are already blanked for everyone else.
func (h *Handler) viewerOptions(m *store.MatchRow, viewerID int64) board.Options {
	var traits game.Traits
	if rs, err := h.cfg.Rules.Get(m.Game); err == nil {
		traits = rs.Traits()
	}
	o := board.Options{Names: map[string]string{}, Logs: map[string]string{}}
	own := map[string]bool{}
	for _, p := range m.Players {
		key := p.Key
		if key == "" {
			// Keys are recorded with the result; until then they follow
			// the seats as the rule sets assign them.
			key = traits.Key(p.Seat)
		}
		o.Names[key] = page.BotLabel(p.BotName, p.Owner)
		own[key] = viewerID != 0 && p.OwnerID == viewerID
		if own[key] && p.Log != "" {
			o.Logs[key] = p.Log
		}
	}
	o.ShowLog = func(key string) bool { return own[key] }
	return o
}

// matchReplay opens a match's replay for the viewer: the stored zip, or
// the rounds published so far while it runs; nil when there is none yet.
func (h *Handler) matchReplay(r *http.Request, m *store.MatchRow) (*board.Replay, error) {
	switch {
	case m.ReplayKey != "":
		return h.replays.open(r.Context(), h.blobs, m.ReplayKey)
	case m.Status == "running":
		// A page shown is a match followed: its rounds are published
		// from now on, for this page's stream or its next refresh.
		h.live.announce(r.Context(), []int64{m.ID})
		return h.liveReplay(r.Context(), m)
	}
	return nil, nil
}

// isLive reports whether a match is still to be played to its end.
func isLive(m *store.MatchRow) bool { return m.ReplayKey == "" && !ended(m.Status) }

// matchViewer is the match page's viewer at the requested round, nil when
// there is nothing to show. A replay the viewer cannot read is logged:
// the result stands without its viewer and the download still works.
func (h *Handler) matchViewer(r *http.Request, m *store.MatchRow, viewerID int64) *page.Viewer {
	rp, err := h.matchReplay(r, m)
	if err == nil && rp == nil {
		return nil
	}
	var f *board.Frame
	if err == nil {
		round, err2 := strconv.Atoi(r.URL.Query().Get("round"))
		if err2 != nil {
			// A finished match opens on its end, where its result is; a
			// running one on its latest step, which the page follows.
			round = rp.Count() - 1
		}
		f, err = rp.Frame(round, h.viewerOptions(m, viewerID))
	}
	if err != nil {
		h.logger.WarnContext(r.Context(), "replay viewer", "match_id", m.ID, "err", err)
		return nil
	}
	o := h.viewerOptions(m, viewerID)
	return &page.Viewer{Frame: f, Chart: board.ChartOf(rp.Scores(o)), Nav: matchNav(m)}
}

func matchNav(m *store.MatchRow) board.Nav {
	base := "/matches/" + strconv.FormatInt(m.ID, 10)
	return board.Nav{Page: base, Fragments: base + "/rounds/", Events: base + "/events", Live: isLive(m)}
}

// matchRound serves one round's boards as an HTML fragment, for the
// viewer's script to swap in without reloading the page.
func (h *Handler) matchRound(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	round, err := strconv.Atoi(chi.URLParam(r, "round"))
	if err != nil || round < 0 {
		h.fail(w, r, refuse(http.StatusNotFound, "There is no such round."))
		return
	}
	viewerID := h.base(r, "").UserID
	m, err := h.matchFor(r.Context(), id, viewerID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	rp, err := h.matchReplay(r, m)
	if err == nil && rp == nil {
		err = refuse(http.StatusNotFound, "This match has no replay yet.")
	}
	if err == nil && round >= rp.Count() {
		err = refuse(http.StatusNotFound, "This replay has %d rounds.", rp.Count())
	}
	var f *board.Frame
	if err == nil {
		f, err = rp.Frame(round, h.viewerOptions(m, viewerID))
	}
	if err != nil {
		if errors.Is(err, board.ErrNoReplay) {
			err = refuse(http.StatusNotFound, "This match has no replay the viewer can show.")
		}
		h.fail(w, r, err)
		return
	}
	// A round of a finished match never changes; the owner's logs make
	// it private to the viewer.
	w.Header().Set("Cache-Control", "private, max-age=300")
	if isLive(m) {
		w.Header().Set("Cache-Control", "no-store")
	}
	h.render(w, r, http.StatusOK, board.Body(f))
}
