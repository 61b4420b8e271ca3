package web

import (
	"context"
	"net/http"

	"github.com/broadside/broadside/internal/store"
)

// seesHidden reports whether the visitor, logged in on the site or
// calling the API with a token, is an organiser: only organisers see the
// games of a battle whose results are hidden. Everyone else, the entrants'
// owners included, sees none of them in any list until the results are
// released, since who played which game is the bracket itself.
func seesHidden(r *http.Request) bool {
	if s := sessionFrom(r); s != nil {
		return s.User.Role == "organiser"
	}
	u := apiUserFrom(r)
	return u != nil && u.Role == "organiser"
}

// hiddenFor returns which of the battle games among ids the viewer may
// not see the result of: those of battles with hidden, unreleased
// results, unless the viewer is an organiser.
func (h *Handler) hiddenFor(ctx context.Context, viewerID int64, ids []int64) (map[int64]bool, error) {
	hidden, err := h.store.BattleHiddenMatches(ctx, ids)
	if err != nil || len(hidden) == 0 || viewerID == 0 {
		return hidden, err
	}
	u, err := h.store.UserGetByID(ctx, viewerID)
	if err != nil {
		return nil, err
	}
	if u.Role == "organiser" {
		return map[int64]bool{}, nil
	}
	return hidden, nil
}

// battleResultGate refuses a battle game's page or replay while the
// battle's results are hidden.
func (h *Handler) battleResultGate(ctx context.Context, m *store.MatchRow, viewerID int64) error {
	if m.Kind != "battle" {
		return nil
	}
	hidden, err := h.hiddenFor(ctx, viewerID, []int64{m.ID})
	if err != nil {
		return err
	}
	if hidden[m.ID] {
		return refuse(http.StatusForbidden, "This is a game of a battle whose results are hidden until the organiser releases them.")
	}
	return nil
}
