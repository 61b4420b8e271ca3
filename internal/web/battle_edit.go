package web

import (
	"net/http"
	"strconv"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// battleEditView loads the battle of the request for its edit form,
// refusing visitors who are not organisers and battles that have started.
func (h *Handler) battleEditView(r *http.Request) (*store.Battle, page.BattleFormView, error) {
	if !isOrganiser(r) {
		return nil, page.BattleFormView{}, battleError(competition.ErrNotOrganiser)
	}
	id, err := pathID(r, "id")
	if err != nil {
		return nil, page.BattleFormView{}, err
	}
	b, err := h.store.BattleGetByID(r.Context(), id)
	if err != nil {
		return nil, page.BattleFormView{}, err
	}
	if b.Status != "open" {
		return nil, page.BattleFormView{}, refuse(http.StatusConflict, "%s is %s; a battle can only be edited before it starts.", b.Name, b.Status)
	}
	v := h.battleFormView(r)
	v.Base = h.base(r, "Edit "+b.Name)
	v.ID = b.ID
	return b, v, nil
}

func (h *Handler) battleEditForm(w http.ResponseWriter, r *http.Request) {
	b, v, err := h.battleEditView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Name, v.Format, v.Game = b.Name, b.Format, b.Game
	v.MapSize, v.GamesPerPairing, v.SwissRounds = strconv.Itoa(b.MapSize), strconv.Itoa(b.GamesPerPairing), strconv.Itoa(b.SwissRounds)
	v.StartAt, v.EntryDeadline = b.StartAt.UTC().Format(battleTimeLayout), b.EntryDeadline.UTC().Format(battleTimeLayout)
	v.Hidden = b.ResultsHidden
	h.render(w, r, http.StatusOK, page.BattleForm(v))
}

// battleEdit saves the edit form; the competition layer checks the
// battle's status again with its row locked.
func (h *Handler) battleEdit(w http.ResponseWriter, r *http.Request) {
	_, v, err := h.battleEditView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v = readBattleForm(r, v)
	p, err := parseBattleForm(v)
	if err == nil {
		err = h.battleService().EditBattle(r.Context(), sessionFrom(r).User.ID, v.ID, p, h.cfg.Games)
		if err == nil {
			http.Redirect(w, r, battlePath(v.ID), http.StatusSeeOther)
			return
		}
	}
	h.battleFormFail(w, r, v, err)
}

func battlePath(id int64) string { return "/battles/" + strconv.FormatInt(id, 10) }
