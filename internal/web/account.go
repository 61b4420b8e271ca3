package web

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/broadside/broadside/web/page"
)

// apiTokenPrefix marks Broadside tokens, so secret scanners can find leaks.
const apiTokenPrefix = "bs_"

func (h *Handler) accountView(r *http.Request) (*page.AccountView, error) {
	ctx := r.Context()
	uid := sessionFrom(r).User.ID
	tokens, err := h.store.APITokenList(ctx, uid)
	if err != nil {
		return nil, err
	}
	bots, err := h.store.BotsOwnedBy(ctx, uid)
	if err != nil {
		return nil, err
	}
	nv, err := h.notifyView(ctx, uid)
	if err != nil {
		return nil, err
	}
	return &page.AccountView{Base: h.base(r, "Your account"), Tokens: tokens, Bots: bots, Notify: nv}, nil
}

func (h *Handler) account(w http.ResponseWriter, r *http.Request) {
	v, err := h.accountView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.Account(*v))
}

func (h *Handler) tokenCreate(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	status := http.StatusOK
	var made, msg string
	if name == "" || utf8.RuneCountInString(name) > 64 {
		status, msg = http.StatusUnprocessableEntity, "Give the token a name of at most 64 characters."
	} else {
		tok, err := newToken()
		if err != nil {
			h.fail(w, r, err)
			return
		}
		tok = apiTokenPrefix + tok
		if _, err := h.store.APITokenCreate(r.Context(), sessionFrom(r).User.ID, name, tokenHash(tok)); err != nil {
			h.fail(w, r, err)
			return
		}
		made = tok
	}
	v, err := h.accountView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.NewToken, v.Error = made, msg
	// The token is shown in this response only: like every page it is
	// sent with Cache-Control: no-store (see noStore).
	h.render(w, r, status, page.Account(*v))
}

func (h *Handler) tokenRevoke(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.store.APITokenRevoke(r.Context(), sessionFrom(r).User.ID, id); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/account", http.StatusSeeOther)
}
