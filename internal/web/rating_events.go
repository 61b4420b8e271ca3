package web

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// ratingEventsDay reads the game and UTC day of the rating events pages
// (today by default).
func (h *Handler) ratingEventsDay(r *http.Request) (string, time.Time, error) {
	game, err := h.leaderboardGame(r)
	if err != nil {
		return "", time.Time{}, err
	}
	day := time.Now().UTC()
	if d := r.URL.Query().Get("day"); d != "" {
		day, err = time.Parse(time.DateOnly, d)
		if err != nil {
			return "", time.Time{}, refuse(http.StatusBadRequest, "The day must be written as 2006-01-02.")
		}
	}
	return game, day.Truncate(24 * time.Hour), nil
}

// ratingEvents lists a game's rating events of one day: every rating
// change, before and after, in the order applied.
func (h *Handler) ratingEvents(w http.ResponseWriter, r *http.Request) {
	game, day, err := h.ratingEventsDay(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	events, err := h.store.RatingEventsDay(r.Context(), game, day)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.RatingEvents(page.RatingEventsView{
		Base: h.base(r, "Rating events"), Game: game, Games: h.cfg.Games, Day: day, Events: events,
	}))
}

// ratingEventsCSV is the same day's events as CSV, at full precision, so
// anyone can replay the ratings.
func (h *Handler) ratingEventsCSV(w http.ResponseWriter, r *http.Request) {
	game, day, err := h.ratingEventsDay(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	events, err := h.store.RatingEventsDay(r.Context(), game, day)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="rating-events-%s-%s.csv"`, game, day.Format(time.DateOnly)))
	cw := csv.NewWriter(w)
	cw.Write(ratingEventHeader)
	for _, e := range events {
		cw.Write(ratingEventRecord(e))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		h.logger.WarnContext(r.Context(), "send rating events", "game", game, "err", err)
	}
}

var ratingEventHeader = []string{"event_id", "applied_at", "ladder", "method", "match_id", "bot_id", "bot",
	"rating_before", "deviation_before", "volatility_before", "rating_after", "deviation_after", "volatility_after",
	"conservative_before", "conservative_after"}

func ratingEventRecord(e store.RatingEventRow) []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	return []string{i(e.ID), e.CreatedAt.UTC().Format(time.RFC3339Nano), e.Ladder, e.Method, i(e.MatchID), i(e.BotID), e.BotName,
		f(e.Before.Rating), f(e.Before.Deviation), f(e.VolBefore), f(e.After.Rating), f(e.After.Deviation), f(e.VolAfter),
		f(e.Before.Conservative()), f(e.After.Conservative())}
}
