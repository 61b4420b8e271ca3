package web

import (
	"context"
	"net/http"

	"github.com/broadside/broadside/internal/store"
)

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

// hideBattleResults blanks, in a match list, the results of battle games
// the viewer may not see yet.
func (h *Handler) hideBattleResults(ctx context.Context, viewerID int64, ms []store.MatchRow) error {
	var ids []int64
	for _, m := range ms {
		if m.Kind == "battle" {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	hidden, err := h.hiddenFor(ctx, viewerID, ids)
	if err != nil {
		return err
	}
	for i := range ms {
		if !hidden[ms[i].ID] {
			continue
		}
		if ms[i].Status == "finished" {
			ms[i].Status = "result hidden"
		}
		for j := range ms[i].Players {
			p := &ms[i].Players[j]
			p.Outcome, p.Points, p.Rank, p.Reason, p.ShipsLeft, p.ShotsFired, p.ShotsLanded, p.Killed = "", 0, 0, "", 0, 0, 0, false
		}
	}
	return nil
}

// hideBattleHistory blanks, in a bot's history, the results of battle
// games the viewer may not see yet.
func (h *Handler) hideBattleHistory(ctx context.Context, viewerID int64, rows []store.HistoryRow) error {
	var ids []int64
	for _, r := range rows {
		if r.Kind == "battle" {
			ids = append(ids, r.MatchID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	hidden, err := h.hiddenFor(ctx, viewerID, ids)
	if err != nil {
		return err
	}
	for i := range rows {
		if hidden[rows[i].MatchID] {
			rows[i].Status, rows[i].Outcome, rows[i].Points, rows[i].OpponentPoints = "result hidden", "", 0, 0
		}
	}
	return nil
}
