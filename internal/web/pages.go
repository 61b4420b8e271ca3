package web

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

const (
	leaderboardPageSize = 50
	matchPageSize       = 50
)

// pageNumber reads ?page=, 1 when absent or malformed.
func pageNumber(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || n < 1 || n > 1_000_000 {
		return 1
	}
	return n
}

func (h *Handler) home(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	top, _, err := h.board.get(ctx, h.store, h.cfg.Games[0], 10, 0)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	matches, err := h.matchRows(ctx, store.MatchListParams{Limit: 10, WithHidden: seesHidden(r)})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.Home(page.HomeView{Base: h.base(r, "Battleship bot competitions"), Top: top, Matches: matches,
		Playing: h.playing(r, ""), Games: h.playGames(), Game: h.cfg.Games[0]}))
}

// leaderboardGame reads ?game=, the main game when absent.
func (h *Handler) leaderboardGame(r *http.Request) (string, error) {
	game := r.URL.Query().Get("game")
	if game == "" {
		return h.cfg.Games[0], nil
	}
	if !slices.Contains(h.cfg.Games, game) {
		return "", refuse(http.StatusNotFound, "There is no game called %q.", game)
	}
	return game, nil
}

func (h *Handler) leaderboard(w http.ResponseWriter, r *http.Request) {
	game, err := h.leaderboardGame(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	n := pageNumber(r)
	rows, total, err := h.board.get(r.Context(), h.store, game, leaderboardPageSize, (n-1)*leaderboardPageSize)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	queue, err := h.board.queue(r.Context(), game, h.battleService().Queue)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.Leaderboard(page.LeaderboardView{
		Base: h.base(r, "Leaderboard"), Game: game, Games: h.cfg.Games, Rows: rows, Queue: queue, Playing: h.playing(r, game),
		Pager: page.Pager{Page: n, HasPrev: n > 1, HasNext: n*leaderboardPageSize < total, Query: "game=" + game + "&"},
	}))
}

func (h *Handler) matches(w http.ResponseWriter, r *http.Request) {
	n := pageNumber(r)
	p := store.MatchListParams{Limit: matchPageSize + 1, Offset: (n - 1) * matchPageSize, WithHidden: seesHidden(r)}
	v := page.MatchesView{Games: h.cfg.Games}
	if b := r.URL.Query().Get("bot"); b != "" {
		id, err := strconv.ParseInt(b, 10, 64)
		if err != nil {
			h.fail(w, r, refuse(http.StatusBadRequest, "The bot filter must be a bot id."))
			return
		}
		p.BotID, v.Bot = id, b
	}
	if g := r.URL.Query().Get("game"); g != "" {
		if !slices.Contains(h.cfg.Games, g) {
			h.fail(w, r, refuse(http.StatusNotFound, "There is no game called %q.", g))
			return
		}
		p.Game, v.Game = g, g
	}

	ms, err := h.matchRows(r.Context(), p)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	more := len(ms) > matchPageSize
	if more {
		ms = ms[:matchPageSize]
	}
	v.Base, v.Matches = h.base(r, "Matches"), ms
	v.Pager = page.Pager{Page: n, HasPrev: n > 1, HasNext: more, Query: v.PagerQuery()}
	h.render(w, r, http.StatusOK, page.Matches(v))
}
