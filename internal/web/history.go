package web

import (
	"net/http"

	"github.com/broadside/broadside/web/page"
)

const (
	// historyPageSize is how many matches a bot's history page lists.
	historyPageSize = 50
	// chartPoints is how many of the latest rated matches the chart draws.
	chartPoints = 300
	// headToHeadMatches is how many of two bots' matches their page lists.
	headToHeadMatches = 50
)

// botHistory is a bot's full match history with its rating chart.
func (h *Handler) botHistory(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	b, err := h.store.BotDetailGet(ctx, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	n := pageNumber(r)
	rows, err := h.store.BotHistory(ctx, id, historyPageSize+1, (n-1)*historyPageSize, seesHidden(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	points, err := h.store.RatingHistory(ctx, id, chartPoints)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.BotHistory(page.BotHistoryView{
		Base: h.base(r, "History of "+b.Name), Bot: b,
		History: rows[:min(len(rows), historyPageSize)], Chart: page.RatingChart(points),
		Pager: page.Pager{Page: n, HasPrev: n > 1, HasNext: len(rows) > historyPageSize},
	}))
}

// headToHead compares two bots by the matches they played each other.
func (h *Handler) headToHead(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	aID, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	bID, err := pathID(r, "other")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if aID == bID {
		h.fail(w, r, refuse(http.StatusBadRequest, "Head to head needs two different bots."))
		return
	}
	d, err := h.headToHeadData(ctx, aID, bID, seesHidden(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.HeadToHead(page.HeadToHeadView{
		Base: h.base(r, d.a.Name+" vs "+d.b.Name), A: d.a, B: d.b, Summary: d.sum, Matches: d.matches,
	}))
}
