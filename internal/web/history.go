package web

import (
	"context"
	"fmt"
	"net/http"

	"github.com/broadside/broadside/internal/store"
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
	n, hidden := pageNumber(r), seesHidden(r)
	// Cached for every visitor but the owner, as the bot page is.
	d, err := cached(ctx, h.board, fmt.Sprintf("history/%d/%d/%t", id, n, hidden), func(ctx context.Context) (historyData, error) {
		return h.historyData(ctx, id, n, hidden)
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	base := h.base(r, "History of "+d.bot.Name)
	if base.UserID != 0 && base.UserID == d.bot.OwnerID {
		if d, err = h.historyData(ctx, id, n, hidden); err != nil {
			h.fail(w, r, err)
			return
		}
		base.Title = "History of " + d.bot.Name
	}
	rows := d.rows
	h.render(w, r, http.StatusOK, page.BotHistory(page.BotHistoryView{
		Base: base, Bot: d.bot,
		History: rows[:min(len(rows), historyPageSize)], Chart: page.RatingChart(d.points),
		Pager: page.Pager{Page: n, HasPrev: n > 1, HasNext: len(rows) > historyPageSize},
	}))
}

// historyData is what a page of a bot's history reads: the bot, the
// page's rows and one more (to tell whether a next page exists), and the
// rating chart.
type historyData struct {
	bot    *store.BotDetail
	rows   []store.HistoryRow
	points []store.RatingPoint
}

func (h *Handler) historyData(ctx context.Context, id int64, n int, withHidden bool) (historyData, error) {
	var d historyData
	var err error
	if d.bot, err = h.store.BotDetailGet(ctx, id); err != nil {
		return d, err
	}
	if d.rows, err = h.store.BotHistory(ctx, id, historyPageSize+1, (n-1)*historyPageSize, withHidden); err != nil {
		return d, err
	}
	d.points, err = h.store.RatingHistory(ctx, id, chartPoints)
	return d, err
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
