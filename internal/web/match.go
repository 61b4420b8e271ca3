package web

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// matchFor loads a match and blanks the bot logs the viewer may not read:
// each bot's own log goes to its owner only.
func (h *Handler) matchFor(ctx context.Context, id, viewerID int64) (*store.MatchRow, error) {
	m, err := h.store.MatchDetailGet(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := h.battleResultGate(ctx, m, viewerID); err != nil {
		return nil, err
	}
	for i := range m.Players {
		if viewerID == 0 || m.Players[i].OwnerID != viewerID {
			m.Players[i].Log = ""
		}
	}
	return m, nil
}

func (h *Handler) matchPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	b := h.base(r, fmt.Sprintf("Match #%d", id))
	m, err := h.matchFor(r.Context(), id, b.UserID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(m.Players) > 2 && m.Status == "finished" {
		// A free-for-all reads best in finishing order; seat order stays
		// on the replay.
		slices.SortStableFunc(m.Players, func(a, b store.MatchPlayerRow) int {
			return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Seat, b.Seat))
		})
	}
	v := page.MatchView{Base: b, Match: m}
	if m.Status == "queued" || m.Status == "running" {
		v.Refresh, v.RefreshNoScript = 5, true
	}
	v.Viewer = h.matchViewer(r, m, b.UserID)
	h.render(w, r, http.StatusOK, page.Match(v))
}

func (h *Handler) replayDownload(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	m, err := h.matchFor(r.Context(), id, h.base(r, "").UserID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if m.ReplayKey == "" {
		h.fail(w, r, refuse(http.StatusNotFound, "This match has no replay yet."))
		return
	}
	rd, err := h.blobs.NewReader(r.Context(), m.ReplayKey, nil)
	if err != nil {
		h.fail(w, r, fmt.Errorf("open replay of match %d: %w", id, err))
		return
	}
	defer rd.Close()
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Length", strconv.FormatInt(rd.Size(), 10))
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="match-%d-replay.zip"`, id))
	if _, err := rd.WriteTo(w); err != nil {
		h.logger.WarnContext(r.Context(), "send replay", "match_id", id, "err", err)
	}
}
