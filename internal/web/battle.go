package web

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// battleTimeLayout is how the battle form's times are written (UTC).
const battleTimeLayout = "2006-01-02T15:04"

// battleService is the competition layer over the handler's store and queue.
func (h *Handler) battleService() *competition.Service {
	return competition.New(h.store, h.queue, h.logger, h.cfg.Rules)
}

// isOrganiser reports whether the visitor has the organiser role.
func isOrganiser(r *http.Request) bool {
	s := sessionFrom(r)
	return s != nil && s.User.Role == "organiser"
}

// battleError turns the competition layer's refusals into user errors.
func battleError(err error) error {
	var ce *competition.Error
	switch {
	case errors.Is(err, competition.ErrNotOrganiser):
		return refuse(http.StatusForbidden, "Only organisers can create or change battles.")
	case errors.As(err, &ce):
		return refuse(http.StatusUnprocessableEntity, "%s", ce.Msg)
	}
	return err
}

func (h *Handler) battles(w http.ResponseWriter, r *http.Request) {
	list, err := h.store.BattleList(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.Battles(page.BattlesView{
		Base: h.base(r, "Battles"), Battles: list, Organiser: isOrganiser(r),
	}))
}

// battleFormView is the creation form with sensible defaults: entries
// close in a day, the battle starts an hour later.
func (h *Handler) battleFormView(r *http.Request) page.BattleFormView {
	deadline := h.now().UTC().Add(24 * time.Hour).Truncate(time.Hour)
	return page.BattleFormView{
		Base: h.base(r, "New battle"), Games: h.cfg.Games,
		Format: "round_robin", Game: h.cfg.Games[0], MapSize: "2", GamesPerPairing: "2", SwissRounds: "0",
		EntryDeadline: deadline.Format(battleTimeLayout), StartAt: deadline.Add(time.Hour).Format(battleTimeLayout),
	}
}

func (h *Handler) battleNewForm(w http.ResponseWriter, r *http.Request) {
	if !isOrganiser(r) {
		h.fail(w, r, battleError(competition.ErrNotOrganiser))
		return
	}
	h.render(w, r, http.StatusOK, page.BattleForm(h.battleFormView(r)))
}

func (h *Handler) battleCreate(w http.ResponseWriter, r *http.Request) {
	v := readBattleForm(r, h.battleFormView(r))
	p, err := parseBattleForm(v)
	if err == nil {
		var id int64
		id, err = h.battleService().CreateBattle(r.Context(), sessionFrom(r).User.ID, p, h.cfg.Games)
		if err == nil {
			http.Redirect(w, r, battlePath(id), http.StatusSeeOther)
			return
		}
	}
	h.battleFormFail(w, r, v, err)
}

// readBattleForm puts the posted battle form's fields in v.
func readBattleForm(r *http.Request, v page.BattleFormView) page.BattleFormView {
	v.Name, v.Format, v.Game = r.PostFormValue("name"), r.PostFormValue("format"), r.PostFormValue("game")
	v.MapSize, v.GamesPerPairing, v.SwissRounds = r.PostFormValue("map_size"), r.PostFormValue("games_per_pairing"), r.PostFormValue("swiss_rounds")
	v.StartAt, v.EntryDeadline = r.PostFormValue("start_at"), r.PostFormValue("entry_deadline")
	v.Hidden = r.PostFormValue("results_hidden") != ""
	return v
}

// battleFormFail shows the battle form again with a refusal, as typed;
// anything else, organisers-only included, is an error page.
func (h *Handler) battleFormFail(w http.ResponseWriter, r *http.Request, v page.BattleFormView, err error) {
	var ue *userError
	if err = battleError(err); errors.As(err, &ue) && ue.status != http.StatusForbidden {
		v.Error = ue.msg
		h.render(w, r, ue.status, page.BattleForm(v))
		return
	}
	h.fail(w, r, err)
}

// parseBattleForm reads the form's numbers and times; the competition
// layer checks the values.
func parseBattleForm(v page.BattleFormView) (competition.BattleParams, error) {
	var msgs []string
	num := func(s, what string) int {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			msgs = append(msgs, what+" must be a whole number.")
		}
		return n
	}
	tm := func(s, what string) time.Time {
		t, err := time.Parse(battleTimeLayout, strings.TrimSpace(s))
		if err != nil {
			msgs = append(msgs, what+" must be a date and time such as 2026-05-01T18:00 (UTC).")
		}
		return t
	}
	var seed [8]byte
	_, _ = rand.Read(seed[:]) // crypto/rand never fails on supported platforms
	p := competition.BattleParams{
		Name: v.Name, Format: v.Format, Game: v.Game,
		MapSize: num(v.MapSize, "The map size"), GamesPerPairing: num(v.GamesPerPairing, "Games per pairing"),
		SwissRounds: num(v.SwissRounds, "Swiss rounds"),
		StartAt:     tm(v.StartAt, "The start time"), EntryDeadline: tm(v.EntryDeadline, "The entry deadline"),
		ResultsHidden: v.Hidden, Seed: int64(binary.BigEndian.Uint64(seed[:]) >> 1),
	}
	if len(msgs) > 0 {
		return p, refuse(http.StatusUnprocessableEntity, "%s", strings.Join(msgs, " "))
	}
	return p, nil
}

func (h *Handler) battlePage(w http.ResponseWriter, r *http.Request) {
	v, err := h.battleView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.BattlePage(*v))
}

// battleView loads a battle's page for this visitor; hidden results are
// left out for everyone but organisers.
func (h *Handler) battleView(r *http.Request) (*page.BattleView, error) {
	ctx := r.Context()
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	rep, err := h.battleService().BattleReport(ctx, id)
	if err != nil {
		return nil, err
	}
	v := &page.BattleView{Base: h.base(r, rep.Battle.Name), Report: rep, Organiser: isOrganiser(r)}
	v.ShowResults = rep.Battle.ResultsVisible() || v.Organiser
	v.Open = rep.Battle.Status == "open" && h.now().Before(rep.Battle.EntryDeadline)
	if rep.Battle.Status == "running" {
		v.Refresh = 10
	}
	if s := sessionFrom(r); s != nil && v.Open {
		bots, err := h.store.BotsOwnedBy(ctx, s.User.ID)
		if err != nil {
			return nil, err
		}
		entered := map[int64]bool{}
		for _, e := range rep.Entries {
			entered[e.BotID] = true
		}
		for _, b := range bots {
			if b.Game == rep.Battle.Game && b.Ready && !entered[b.ID] {
				v.MyBots = append(v.MyBots, b)
			}
		}
		if v.Organiser {
			house, err := h.store.HouseBots(ctx, rep.Battle.Game)
			if err != nil {
				return nil, err
			}
			for _, hb := range house {
				if !hb.Disabled && !entered[hb.ID] {
					v.HouseBots = append(v.HouseBots, store.BotOwnedRow{ID: hb.ID, Name: hb.Name, Game: rep.Battle.Game, Ready: true})
				}
			}
		}
	}
	return v, nil
}

// battleAct runs one action on a battle and shows its page again: with
// the action's refusal, or after a redirect when it worked.
func (h *Handler) battleAct(w http.ResponseWriter, r *http.Request, act func(svc *competition.Service, userID, battleID int64) error) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	err = battleError(act(h.battleService(), sessionFrom(r).User.ID, id))
	var ue *userError
	if errors.As(err, &ue) && ue.status != http.StatusForbidden {
		v, verr := h.battleView(r)
		if verr != nil {
			h.fail(w, r, verr)
			return
		}
		v.Error = ue.msg
		h.render(w, r, ue.status, page.BattlePage(*v))
		return
	} else if err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, battlePath(id), http.StatusSeeOther)
}

func formBotID(r *http.Request) int64 {
	id, _ := strconv.ParseInt(r.PostFormValue("bot_id"), 10, 64)
	return id
}

func (h *Handler) battleEnter(w http.ResponseWriter, r *http.Request) {
	h.battleAct(w, r, func(svc *competition.Service, userID, battleID int64) error {
		return svc.EnterBattle(r.Context(), userID, battleID, formBotID(r))
	})
}

func (h *Handler) battleWithdraw(w http.ResponseWriter, r *http.Request) {
	h.battleAct(w, r, func(svc *competition.Service, userID, battleID int64) error {
		err := svc.WithdrawBattle(r.Context(), userID, battleID, formBotID(r))
		if errors.Is(err, store.ErrNotFound) {
			return refuse(http.StatusUnprocessableEntity, "That bot is not entered.")
		}
		return err
	})
}

func (h *Handler) battleStart(w http.ResponseWriter, r *http.Request) {
	h.battleAct(w, r, func(svc *competition.Service, userID, battleID int64) error {
		return svc.StartBattleNow(r.Context(), userID, battleID)
	})
}

func (h *Handler) battleRelease(w http.ResponseWriter, r *http.Request) {
	h.battleAct(w, r, func(svc *competition.Service, userID, battleID int64) error {
		return svc.ReleaseBattle(r.Context(), userID, battleID)
	})
}

func (h *Handler) battleCancel(w http.ResponseWriter, r *http.Request) {
	h.battleAct(w, r, func(svc *competition.Service, userID, battleID int64) error {
		return svc.CancelBattle(r.Context(), userID, battleID)
	})
}
