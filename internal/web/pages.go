package web

import (
	"bytes"
	"context"
	"fmt"
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
	if sessionFrom(r) == nil && !seesHidden(r) {
		// Every signed-out visitor gets the same page: drawn and
		// compressed once per interval, it is served as it is.
		p, err := h.board.visitorPage(r.Context(), fmt.Sprintf("leaderboard/%s/%d", game, n), func(ctx context.Context) ([]byte, error) {
			v, err := h.leaderboardView(ctx, game, n, page.Base{Title: "Leaderboard"}, false)
			if err != nil {
				return nil, err
			}
			var buf bytes.Buffer
			err = page.Leaderboard(v).Render(ctx, &buf)
			return buf.Bytes(), err
		})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		p.serve(w, r)
		return
	}
	v, err := h.leaderboardView(r.Context(), game, n, h.base(r, "Leaderboard"), seesHidden(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.Leaderboard(v))
}

// leaderboardView is page n of a game's leaderboard for a visitor with
// base; withHidden shows the hidden battles' games being played.
func (h *Handler) leaderboardView(ctx context.Context, game string, n int, base page.Base, withHidden bool) (page.LeaderboardView, error) {
	table, total, err := h.board.table(ctx, h.store, game, leaderboardPageSize, (n-1)*leaderboardPageSize)
	if err != nil {
		return page.LeaderboardView{}, err
	}
	queue, err := h.board.queue(ctx, game, h.battleService().Queue)
	if err != nil {
		return page.LeaderboardView{}, err
	}
	return page.LeaderboardView{
		Base: base, Game: game, Games: h.cfg.Games, Table: table, Queue: queue, Playing: h.playingNow(ctx, game, withHidden),
		Pager: page.Pager{Page: n, HasPrev: n > 1, HasNext: n*leaderboardPageSize < total, Query: "game=" + game + "&"},
	}, nil
}

// matches lists matches newest first. Its pager pages by id (?before=,
// ?after=): a page deep in a million matches is read from the index like
// the first, where ?page= alone (older links) skips every match before
// it.
func (h *Handler) matches(w http.ResponseWriter, r *http.Request) {
	n := pageNumber(r)
	p := store.MatchListParams{Limit: matchPageSize + 1, WithHidden: seesHidden(r)}
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
	p.Before, p.After = cursor(r, "before"), cursor(r, "after")
	if p.Before == 0 && p.After == 0 {
		p.Offset = (n - 1) * matchPageSize
	}

	ms, err := h.matchRows(r.Context(), p)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	hasPrev := n > 1 || p.Before != 0
	if p.After != 0 {
		if len(ms) <= matchPageSize {
			// Fewer newer matches than a page: the first page is the one
			// before.
			p.After, n, hasPrev = 0, 1, false
			if ms, err = h.matchRows(r.Context(), p); err != nil {
				h.fail(w, r, err)
				return
			}
		} else {
			// The one more read shows there are newer pages still; it is
			// the newest, first in the list.
			ms = ms[1:]
			hasPrev = true
		}
	}
	more := len(ms) > matchPageSize
	if more {
		ms = ms[:matchPageSize]
	}
	v.Base, v.Matches = h.base(r, "Matches"), ms
	v.Pager = page.Pager{Page: n, HasPrev: hasPrev, HasNext: more || p.After != 0, Query: v.PagerQuery()}
	if len(ms) > 0 {
		v.Pager.NextBefore, v.Pager.PrevAfter = ms[len(ms)-1].ID, ms[0].ID
	}
	h.render(w, r, http.StatusOK, page.Matches(v))
}

// cursor reads a match id parameter of the pager, 0 when absent or
// malformed.
func cursor(r *http.Request, name string) int64 {
	id, err := strconv.ParseInt(r.URL.Query().Get(name), 10, 64)
	if err != nil || id < 1 {
		return 0
	}
	return id
}
