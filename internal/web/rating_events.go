package web

import (
	"fmt"
	"net/http"
	"time"

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

// ratingEventsCSV is the same day's events as an export (CSV, or JSON
// lines with ?format=jsonl), with the columns of the whole ladder's.
func (h *Handler) ratingEventsCSV(w http.ResponseWriter, r *http.Request) {
	game, day, err := h.ratingEventsDay(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	name := fmt.Sprintf("rating-events-%s-%s", game, day.Format(time.DateOnly))
	h.export(w, r, h.fail, name, ratingEventColumns, func(write func(...any) error) error {
		return h.store.RatingEventsEach(r.Context(), game, day, day.AddDate(0, 0, 1), seesHidden(r), ratingEventRow(write))
	})
}
