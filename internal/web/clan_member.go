package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/a-h/templ"

	"github.com/broadside/broadside/web/page"
)

// clanAction runs one member action on the clan in the route and answers
// with a redirect, or with the clan page and the refusal.
func (h *Handler) clanAction(do func(ctx context.Context, userID, clanID int64, r *http.Request) (string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		clanID, err := pathID(r, "id")
		if err != nil {
			h.fail(w, r, err)
			return
		}
		next, err := do(r.Context(), sessionFrom(r).User.ID, clanID, r)
		if h.refused(w, r, err, func(msg string) (templ.Component, error) {
			v, err := h.clanView(r)
			if err != nil {
				return nil, err
			}
			v.Error = msg
			return page.Clan(*v), nil
		}) {
			return
		}
		http.Redirect(w, r, next, http.StatusSeeOther)
	}
}

func clanPath(clanID int64, done string) string {
	return "/clans/" + strconv.FormatInt(clanID, 10) + "?done=" + done
}

func (h *Handler) clanJoin(ctx context.Context, userID, clanID int64, r *http.Request) (string, error) {
	return clanPath(clanID, "joined"), h.comp.ClanJoin(ctx, userID, clanID, r.PostFormValue("key"))
}

func (h *Handler) clanLeave(ctx context.Context, userID, clanID int64, _ *http.Request) (string, error) {
	return "/clans", h.comp.ClanLeave(ctx, userID, clanID)
}

func (h *Handler) clanNewKey(ctx context.Context, userID, clanID int64, _ *http.Request) (string, error) {
	return clanPath(clanID, "key"), h.comp.ClanNewKey(ctx, userID, clanID)
}

func (h *Handler) clanPromote(ctx context.Context, userID, clanID int64, r *http.Request) (string, error) {
	member, err := strconv.ParseInt(r.PostFormValue("user_id"), 10, 64)
	if err != nil {
		return "", refuse(http.StatusBadRequest, "Choose a member to promote.")
	}
	return clanPath(clanID, "promoted"), h.comp.ClanPromote(ctx, userID, clanID, member)
}
