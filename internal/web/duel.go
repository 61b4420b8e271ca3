package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/duel"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// duelListSize is how many duels a list shows.
const duelListSize = 20

// duelForm starts a duel from the bot page's form; the owner lands on the
// duel's page.
func (h *Handler) duelForm(w http.ResponseWriter, r *http.Request) {
	botID, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	p := competition.DuelParams{UserID: sessionFrom(r).User.ID, BotID: botID}
	p.Version, _ = strconv.Atoi(r.PostFormValue("version"))
	p.MaxGames, _ = strconv.Atoi(r.PostFormValue("max_games"))
	// The opponent is "botID:version", version 0 for a house bot's playing one.
	bot, ver, _ := strings.Cut(r.PostFormValue("opponent"), ":")
	p.OpponentBotID, _ = strconv.ParseInt(bot, 10, 64)
	p.OpponentVersion, _ = strconv.Atoi(ver)
	if p.MaxGames == 0 {
		p.MaxGames = -1 // an empty or unreadable field is refused, not taken for the default
	}
	id, err := h.comp.StartDuel(r.Context(), p)
	if h.refused(w, r, err, func(msg string) (templ.Component, error) {
		v, err := h.botView(r)
		if err != nil {
			return nil, err
		}
		v.Error = msg
		return page.Bot(*v), nil
	}) {
		return
	}
	http.Redirect(w, r, "/duels/"+strconv.FormatInt(id, 10), http.StatusSeeOther)
}

// duelStatus loads how a duel stands.
func (h *Handler) duelStatus(ctx context.Context, id int64) (page.DuelStatus, error) {
	d, err := h.store.DuelGetByID(ctx, id)
	if err != nil {
		return page.DuelStatus{}, err
	}
	games, err := h.store.DuelGames(ctx, id)
	if err != nil {
		return page.DuelStatus{}, err
	}
	return page.DuelStatus{Duel: d, Games: competition.DuelGamesOf(d, games)}, nil
}

// duelPage shows a duel; anyone may follow it, as anyone may watch its
// matches.
func (h *Handler) duelPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	s, err := h.duelStatus(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := page.DuelView{Base: h.base(r, "Duel #"+strconv.FormatInt(id, 10)), Status: s}
	v.IsOwner = v.UserID == s.Duel.OwnerID
	if s.Duel.Status == store.DuelRunning {
		// Scripts follow the duel's event stream instead.
		v.Refresh, v.RefreshNoScript = 10, true
	}
	h.render(w, r, http.StatusOK, page.Duel(v))
}

// duels lists the signed-in user's duels.
func (h *Handler) duels(w http.ResponseWriter, r *http.Request) {
	ds, err := h.store.DuelList(r.Context(), sessionFrom(r).User.ID, 0, duelListSize)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.Duels(page.DuelsView{Base: h.base(r, "Your duels"), Duels: ds}))
}

// duelFormView is the bot page's duel form for its owner.
func (h *Handler) duelFormView(ctx context.Context, b *store.BotDetail, versions []store.BotVersionRow) (*page.DuelForm, error) {
	f := &page.DuelForm{}
	for _, v := range versions {
		if v.BuildStatus == store.BuildOK {
			f.Versions = append(f.Versions, v)
		}
	}
	var err error
	if f.Sides, err = h.store.DuelSides(ctx, b.OwnerID, b.Game); err != nil {
		return nil, err
	}
	for _, s := range f.Sides {
		if b.CurrentVersionID == nil || s.VersionID != *b.CurrentVersionID {
			f.Default = page.DuelSideValue(s)
			break
		}
	}
	if f.Duels, err = h.store.DuelList(ctx, b.OwnerID, b.ID, 5); err != nil {
		return nil, err
	}
	return f, nil
}

// duelHub follows the duel_events channel and fans each change out to the
// pages watching that duel: the duel's new state is read and drawn once,
// however many pages watch it.
type duelHub struct {
	h *Handler
	*fanout[struct{}]
}

func newDuelHub(h *Handler) *duelHub { return &duelHub{h: h, fanout: newFanout[struct{}]()} }

func (d *duelHub) run(ctx context.Context) {
	d.fanout.run(ctx, d.h.logger, "duel events", func(ctx context.Context, ready func()) error {
		return d.h.store.DuelEventsListen(ctx, ready, func(ev store.DuelEvent) { d.dispatch(ctx, ev) })
	}, func(ctx context.Context, id int64) {
		// A duel's event reads its state afresh.
		d.dispatch(ctx, store.DuelEvent{Duel: id})
	})
}

func (d *duelHub) watch(id int64) (chan sseEvent, func()) {
	return d.fanout.watch(id, func() struct{} { return struct{}{} })
}

func (d *duelHub) dispatch(ctx context.Context, ev store.DuelEvent) {
	d.deliver(ev.Duel, func(*struct{}) ([]sseEvent, bool) {
		s, err := d.h.duelStatus(ctx, ev.Duel)
		if err != nil {
			d.h.logger.WarnContext(ctx, "live: duel", "duel_id", ev.Duel, "err", err)
			return nil, false
		}
		e, err := duelEvent(ctx, s)
		if err != nil {
			d.h.logger.WarnContext(ctx, "live: duel", "duel_id", ev.Duel, "err", err)
			return nil, false
		}
		return []sseEvent{e}, e.name == "end"
	})
}

// duelEvent is "update" with the duel's body drawn anew, or "end" with
// its last state once it is over.
func duelEvent(ctx context.Context, s page.DuelStatus) (sseEvent, error) {
	var buf strings.Builder
	if err := page.DuelBody(s).Render(ctx, &buf); err != nil {
		return sseEvent{}, err
	}
	data, err := json.Marshal(map[string]string{"status": s.Duel.Status, "html": buf.String()})
	if err != nil {
		return sseEvent{}, err
	}
	name := "update"
	if s.Duel.Status != store.DuelRunning {
		name = "end"
	}
	return sseEvent{name: name, data: data}, nil
}

// duelEvents is the duel's server-sent event stream: "update" after each
// change with the page's changing part, "end" with its last state when
// the duel is over (at once for a duel already over).
func (h *Handler) duelEvents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if _, err := h.store.DuelGetByID(ctx, id); err != nil {
		h.fail(w, r, err)
		return
	}
	release, ok := h.takeStream(w, r)
	if !ok {
		return
	}
	defer release()
	ch, stop := h.duelLive.watch(id)
	defer stop()
	// Read after watching, so no change between the two is lost.
	s, err := h.duelStatus(ctx, id)
	if err != nil {
		return
	}
	ev, err := duelEvent(ctx, s)
	if err != nil {
		return
	}
	sse := startSSE(w)
	if !sse.send(ev) || ev.name == "end" {
		return
	}
	sse.follow(ctx, ch, h.duelLive.done, nil)
}

// apiDuelStart starts a duel of the user's bot {id}: 201 with the duel.
func (h *Handler) apiDuelStart(w http.ResponseWriter, r *http.Request) {
	botID, err := pathID(r, "id")
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	var body struct {
		Version         int   `json:"version"`
		OpponentBotID   int64 `json:"opponent_bot_id"`
		OpponentVersion int   `json:"opponent_version"`
		MaxGames        int   `json:"max_games"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&body); err != nil && err != io.EOF {
		h.apiFail(w, r, refuse(http.StatusBadRequest, `Send a JSON object such as {"opponent_bot_id": 7, "max_games": 40}; every field may be left out.`))
		return
	}
	id, err := h.comp.StartDuel(r.Context(), competition.DuelParams{
		UserID: apiUserFrom(r).ID, BotID: botID, Version: body.Version,
		OpponentBotID: body.OpponentBotID, OpponentVersion: body.OpponentVersion, MaxGames: body.MaxGames,
	})
	if err != nil {
		h.apiFail(w, r, compErr(err))
		return
	}
	s, err := h.duelStatus(r.Context(), id)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, duelJSON(s))
}

// apiDuelGet returns a duel with its games.
func (h *Handler) apiDuelGet(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	s, err := h.duelStatus(r.Context(), id)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, duelJSON(s))
}

func duelSideJSON(botID int64, name string, versionID int64, version int, house bool) map[string]any {
	return map[string]any{"bot_id": botID, "bot": name, "version_id": versionID, "version": version, "house": house}
}

func duelJSON(s page.DuelStatus) map[string]any {
	d := s.Duel
	score := competition.DuelScore(d)
	lo, hi := duel.Wilson95(score)
	games := []map[string]any{}
	for _, g := range s.Games {
		games = append(games, map[string]any{
			"index": g.Index, "match_id": g.MatchID, "seed": g.Seed, "seat_a": g.SeatA,
			"status": g.Status, "result": g.Result, "counted": g.Counted,
		})
	}
	out := map[string]any{
		"id": d.ID, "url": "/duels/" + strconv.FormatInt(d.ID, 10), "owner": d.Owner, "game": d.Game,
		"a":           duelSideJSON(d.ABotID, d.ABotName, d.AVersionID, d.AVersion, false),
		"b":           duelSideJSON(d.BBotID, d.BBotName, d.BVersionID, d.BVersion, d.BHouse),
		"master_seed": d.MasterSeed, "max_games": d.MaxGames, "delta": d.Delta,
		"status": d.Status, "verdict": d.Verdict, "error": d.Error,
		"games_played": score.Games(), "wins_a": d.WinsA, "wins_b": d.WinsB, "draws": d.Draws,
		"win_rate_a": score.Rate(), "interval": []float64{lo, hi},
		"created_at": d.CreatedAt, "finished_at": d.FinishedAt, "games": games,
	}
	return out
}
