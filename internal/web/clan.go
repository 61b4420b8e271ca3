package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/a-h/templ"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// clanHistorySize is how many result rows a clan page shows at a time.
const clanHistorySize = 50

// clansView lists the clans and the visitor's own.
func (h *Handler) clansView(r *http.Request) (*page.ClansView, error) {
	ctx := r.Context()
	clans, err := h.store.ClanList(ctx)
	if err != nil {
		return nil, err
	}
	v := &page.ClansView{Base: h.base(r, "Clans"), Clans: clans}
	if v.UserID != 0 {
		mine, err := h.store.ClanGetByUser(ctx, v.UserID)
		switch {
		case err == nil:
			v.MyClan = mine
		case !errors.Is(err, store.ErrNotFound):
			return nil, err
		}
	}
	return v, nil
}

func (h *Handler) clans(w http.ResponseWriter, r *http.Request) {
	v, err := h.clansView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.Clans(*v))
}

// clanCreate founds a clan with the user as owner.
func (h *Handler) clanCreate(w http.ResponseWriter, r *http.Request) {
	name, desc := r.PostFormValue("name"), r.PostFormValue("description")
	c, err := h.comp.ClanCreate(r.Context(), sessionFrom(r).User.ID, name, desc)
	if h.refused(w, r, err, func(msg string) (templ.Component, error) {
		v, err := h.clansView(r)
		if err != nil {
			return nil, err
		}
		v.Error, v.Name, v.Description = msg, name, desc
		return page.Clans(*v), nil
	}) {
		return
	}
	http.Redirect(w, r, "/clans/"+strconv.FormatInt(c.ID, 10)+"?done=created", http.StatusSeeOther)
}

// clanView loads a clan's page for the visitor. The join key is only
// shown to members; a visitor following an invite link has it in ?key=.
func (h *Handler) clanView(r *http.Request) (*page.ClanView, error) {
	ctx := r.Context()
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	c, err := h.store.ClanGetByID(ctx, id)
	if err != nil {
		return nil, err
	}
	members, err := h.store.ClanMembers(ctx, id)
	if err != nil {
		return nil, err
	}
	bots, err := h.store.ClanBots(ctx, id)
	if err != nil {
		return nil, err
	}
	n := pageNumber(r)
	history, err := h.store.ClanHistory(ctx, id, clanHistorySize+1, (n-1)*clanHistorySize, seesHidden(r))
	if err != nil {
		return nil, err
	}
	v := &page.ClanView{
		Base: h.base(r, c.Name), Clan: c, Members: members, Bots: bots,
		Pager: page.Pager{Page: n, HasPrev: n > 1, HasNext: len(history) > clanHistorySize},
		Key:   r.URL.Query().Get("key"),
	}
	v.History = history[:min(len(history), clanHistorySize)]
	for _, m := range members {
		if m.UserID == v.UserID {
			v.MyRole = m.Role
		}
	}
	if v.MyRole != "" {
		v.InviteURL = inviteURL(r, c)
	} else {
		c.JoinKey = "" // the key is the members' secret
		if v.UserID != 0 {
			_, err := h.store.ClanGetByUser(ctx, v.UserID)
			switch {
			case err == nil:
				v.InOtherClan = true
			case !errors.Is(err, store.ErrNotFound):
				return nil, err
			}
		}
	}
	return v, nil
}

// inviteURL is the absolute link that opens the clan page with its key.
func inviteURL(r *http.Request, c *store.Clan) string {
	scheme := "https"
	if r.TLS == nil && r.Header.Get("X-Forwarded-Proto") != "https" {
		scheme = "http"
	}
	u := url.URL{Scheme: scheme, Host: r.Host, Path: "/clans/" + strconv.FormatInt(c.ID, 10),
		RawQuery: url.Values{"key": {c.JoinKey}}.Encode()}
	return u.String()
}

func (h *Handler) clanPage(w http.ResponseWriter, r *http.Request) {
	v, err := h.clanView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Notice = clanNotice(r.URL.Query().Get("done"))
	h.render(w, r, http.StatusOK, page.Clan(*v))
}

// clanNotice confirms what a clan action did, after its redirect.
func clanNotice(done string) string {
	switch done {
	case "created":
		return "Your clan is founded. Share its invite link or join key with the others."
	case "joined":
		return "Welcome: you are now a member of this clan."
	case "key":
		return "The join key was replaced; old invite links no longer work."
	case "promoted":
		return "The member is now an owner."
	}
	return ""
}
