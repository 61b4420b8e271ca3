package web

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// apiMatchItem is a match in API match lists: what the matches page shows.
// It leaves out the engine's summary, which names the winner even of a
// battle game whose results are hidden.
type apiMatchItem struct {
	apiMatchHead
	Players []apiMatchPlayer `json:"players"`
	// Winner is the winning bot's id.
	Winner     *int64     `json:"winner"`
	URL        string     `json:"url"`
	CreatedAt  time.Time  `json:"created_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

func toAPIMatchItem(m *store.MatchRow) apiMatchItem {
	out := apiMatchItem{apiMatchHead: toAPIMatchHead(m), Players: toAPIMatchPlayers(m, 0),
		URL: "/api/matches/" + strconv.FormatInt(m.ID, 10), CreatedAt: m.CreatedAt, FinishedAt: m.FinishedAt}
	for _, p := range m.Players {
		if p.Outcome == "win" && m.Status == "finished" {
			out.Winner = &p.BotID
		}
	}
	return out
}

// apiMatches lists matches newest first, a page at a time, as the matches
// page does; the games of hidden battles are left out, as there.
func (h *Handler) apiMatches(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n := pageNumber(r)
	p := store.MatchListParams{Limit: matchPageSize + 1, Offset: (n - 1) * matchPageSize, WithHidden: seesHidden(r)}
	if b := q.Get("bot"); b != "" {
		id, err := strconv.ParseInt(b, 10, 64)
		if err != nil {
			h.apiFail(w, r, refuse(http.StatusBadRequest, "The bot filter must be a bot id."))
			return
		}
		p.BotID = id
	}
	if g := q.Get("game"); g != "" {
		if !slices.Contains(h.cfg.Games, g) {
			h.apiFail(w, r, refuse(http.StatusNotFound, "There is no game called %q.", g))
			return
		}
		p.Game = g
	}
	if err := h.matchFilters(r, &p); err != nil {
		h.apiFail(w, r, err)
		return
	}
	ms, err := h.store.MatchRows(r.Context(), p)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	more := len(ms) > matchPageSize
	if more {
		ms = ms[:matchPageSize]
	}
	out := make([]apiMatchItem, 0, len(ms))
	for i := range ms {
		out = append(out, toAPIMatchItem(&ms[i]))
	}
	var next *string
	if more {
		v := r.URL.Query()
		v.Set("page", strconv.Itoa(n+1))
		u := "/api/matches?" + v.Encode()
		next = &u
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"page": n, "per_page": matchPageSize, "next": next, "matches": out,
	})
}

// matchFilters reads the match list's filters beyond bot and game: mine
// (the token's user's matches), result (of the bot's or the user's seat),
// kind, ranked and since.
func (h *Handler) matchFilters(r *http.Request, p *store.MatchListParams) error {
	q := r.URL.Query()
	if v := q.Get("mine"); v != "" {
		mine, err := strconv.ParseBool(v)
		if err != nil {
			return refuse(http.StatusBadRequest, "The mine filter is true or false.")
		}
		if mine {
			u := apiUserFrom(r)
			if u == nil {
				return refuse(http.StatusUnauthorized, "Listing your own matches (mine=true) needs an API token.")
			}
			p.OwnerID = u.ID
		}
	}
	if v := q.Get("result"); v != "" {
		outcome, ok := map[string]string{"won": "win", "lost": "loss", "drawn": "draw"}[v]
		if !ok {
			return refuse(http.StatusBadRequest, "The result filter is won, lost or drawn.")
		}
		if p.BotID == 0 && p.OwnerID == 0 {
			return refuse(http.StatusBadRequest, "The result filter needs a bot (bot=ID) or your own matches (mine=true) to be the result of.")
		}
		p.Outcome = outcome
	}
	if v := q.Get("kind"); v != "" {
		if !slices.Contains([]string{"ladder", "placement", "challenge", "battle", "duel"}, v) {
			return refuse(http.StatusBadRequest, "The kind filter is ladder, placement, challenge, battle or duel.")
		}
		p.Kind = v
	}
	if v := q.Get("ranked"); v != "" {
		ranked, err := strconv.ParseBool(v)
		if err != nil {
			return refuse(http.StatusBadRequest, "The ranked filter is true or false.")
		}
		p.Ranked = &ranked
	}
	if v := q.Get("since"); v != "" {
		since, err := time.Parse(time.RFC3339, v)
		if err != nil {
			since, err = time.Parse(time.DateOnly, v)
		}
		if err != nil {
			return refuse(http.StatusBadRequest, "The since filter is a date (2026-11-22) or a time (2026-11-22T20:00:00Z).")
		}
		p.Since = since
	}
	return nil
}
