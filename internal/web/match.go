package web

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"

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
	if err := h.matchRatings(r.Context(), &v); err != nil {
		h.fail(w, r, err)
		return
	}
	if m.Status == "queued" || m.Status == "running" {
		v.Refresh, v.RefreshNoScript = 5, true
	}
	v.Viewer = h.matchViewer(r, m, b.UserID)
	h.render(w, r, http.StatusOK, page.Match(v))
}

// matchRatings adds what the match did to the ratings, and for a half of a
// pair both halves, to the match page.
func (h *Handler) matchRatings(ctx context.Context, v *page.MatchView) error {
	if !v.Match.Ranked {
		return nil
	}
	var err error
	if v.Ratings, err = h.store.MatchRatingEvents(ctx, v.Match); err != nil {
		return err
	}
	if v.Match.PairID != nil {
		if v.Pair, err = h.store.MatchPairHalves(ctx, *v.Match.PairID); err != nil {
			return err
		}
	}
	return nil
}
