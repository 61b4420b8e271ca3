package web

import (
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/broadside/broadside/web/page"
)

// playGames is every hosted game with what its getting started page says
// of it, the main game first.
func (h *Handler) playGames() []page.PlayGame {
	out := make([]page.PlayGame, 0, len(h.cfg.Games))
	for _, g := range h.cfg.Games {
		rs, err := h.cfg.Rules.Get(g)
		if err != nil {
			continue
		}
		out = append(out, page.PlayGame{Game: g, Traits: rs.Traits()})
	}
	return out
}

// playIndex is the getting started page: the games and the way in.
func (h *Handler) playIndex(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, page.PlayIndex(page.PlayView{Base: h.base(r, "Getting started"), Games: h.playGames()}))
}

// playPage is one game's getting started page: its rules, starter kits,
// manifest, the local command, the API.
func (h *Handler) playPage(w http.ResponseWriter, r *http.Request) {
	game := chi.URLParam(r, "game")
	games := h.playGames()
	i := slices.IndexFunc(games, func(g page.PlayGame) bool { return g.Game == game })
	if i < 0 {
		h.fail(w, r, refuse(http.StatusNotFound, "There is no game called %q.", game))
		return
	}
	starters, err := h.store.HouseBots(r.Context(), game)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	g := games[i]
	h.render(w, r, http.StatusOK, page.Play(page.PlayView{
		Base: h.base(r, "Getting started: "+g.Traits.Title), Games: games, Game: g, Starters: starters,
		MaxBytes: h.cfg.UploadMaxBytes,
	}))
}
