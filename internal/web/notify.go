package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/broadside/broadside/internal/event"
	"github.com/broadside/broadside/internal/notify"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// recentDeliveries is how many webhook deliveries the settings show.
const recentDeliveries = 20

// checkURL applies the notifier's URL rules, or the production ones.
func (h *Handler) checkURL(raw string) error {
	if h.cfg.Notifier != nil {
		return h.cfg.Notifier.CheckURL(raw)
	}
	return notify.CheckURL(raw, false)
}

func (h *Handler) emailOn() bool { return h.cfg.Notifier != nil && h.cfg.Notifier.EmailOn() }

// notifyView loads a user's notification settings.
func (h *Handler) notifyView(ctx context.Context, uid int64) (page.NotifyView, error) {
	v := page.NotifyView{EmailOn: h.emailOn()}
	for _, t := range event.Types() {
		v.Types = append(v.Types, page.EventType{Name: string(t), Title: t.Title()})
	}
	em, err := h.store.NotifyEmailGet(ctx, uid)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return v, err
	}
	v.Email = em
	if v.Webhooks, err = h.store.WebhookList(ctx, uid); err != nil {
		return v, err
	}
	if v.Deliveries, err = h.store.WebhookDeliveriesRecent(ctx, uid, recentDeliveries); err != nil {
		return v, err
	}
	return v, nil
}

// eventChoice reads the chosen event types, refusing unknown ones.
func eventChoice(names []string) ([]string, error) {
	out := []string{}
	for _, n := range names {
		if !event.Type(n).Valid() {
			return nil, refuse(http.StatusUnprocessableEntity, "There is no event %q; see docs/api.md for the list.", n)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// createWebhook checks and records a new hook of the user; the secret is
// returned once.
func (h *Handler) createWebhook(ctx context.Context, uid int64, url string, events []string) (*store.Webhook, error) {
	if err := h.checkURL(url); err != nil {
		return nil, refuse(http.StatusUnprocessableEntity, "That webhook URL cannot be used: %v.", err)
	}
	evs, err := eventChoice(events)
	if err != nil {
		return nil, err
	}
	secret, err := notify.NewSecret()
	if err != nil {
		return nil, err
	}
	hook, err := h.store.WebhookCreate(ctx, uid, url, secret, evs, notify.MaxWebhooks)
	if errors.Is(err, store.ErrConflict) {
		return nil, refuse(http.StatusConflict, "You have %d webhooks already, the most one account may have.", notify.MaxWebhooks)
	}
	return hook, err
}

// setEmail checks an address and starts its verification.
func (h *Handler) setEmail(ctx context.Context, uid int64, raw string) (string, error) {
	if !h.emailOn() {
		return "", refuse(http.StatusConflict, "This portal sends no e-mail.")
	}
	addr, err := notify.CheckAddress(raw)
	if err != nil {
		return "", refuse(http.StatusUnprocessableEntity, "%q is not an e-mail address.", raw)
	}
	if err := h.cfg.Notifier.SetEmail(ctx, uid, addr); errors.Is(err, store.ErrTooSoon) {
		return "", refuse(http.StatusTooManyRequests, "You asked for a confirmation link less than a minute ago; please wait a little.")
	} else if err != nil {
		return "", err
	}
	return addr, nil
}

// renderAccount renders the account page with a notification notice, or
// an error with its status.
func (h *Handler) renderAccount(w http.ResponseWriter, r *http.Request, tune func(*page.NotifyView), fail error) {
	v, err := h.accountView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	status := http.StatusOK
	if fail != nil {
		var ue *userError
		if !errors.As(fail, &ue) {
			h.fail(w, r, fail)
			return
		}
		status, v.Notify.Error = ue.status, ue.msg
	}
	if tune != nil {
		tune(&v.Notify)
	}
	h.render(w, r, status, page.Account(*v))
}

func (h *Handler) notifyEmailForm(w http.ResponseWriter, r *http.Request) {
	addr, err := h.setEmail(r.Context(), sessionFrom(r).User.ID, r.PostFormValue("address"))
	h.renderAccount(w, r, func(v *page.NotifyView) {
		if err == nil {
			v.Notice = fmt.Sprintf("We sent a confirmation link to %s.", addr)
		}
	}, err)
}

func (h *Handler) notifyEmailEventsForm(w http.ResponseWriter, r *http.Request) {
	evs, err := eventChoice(r.PostForm["event"])
	if err == nil {
		err = h.store.NotifyEmailSetEvents(r.Context(), sessionFrom(r).User.ID, evs)
		if errors.Is(err, store.ErrNotFound) {
			err = refuse(http.StatusConflict, "Give an e-mail address first.")
		}
	}
	h.renderAccount(w, r, func(v *page.NotifyView) {
		if err == nil {
			v.Notice = "Your e-mail choices are saved."
		}
	}, err)
}

func (h *Handler) webhookCreateForm(w http.ResponseWriter, r *http.Request) {
	hook, err := h.createWebhook(r.Context(), sessionFrom(r).User.ID, r.PostFormValue("url"), r.PostForm["event"])
	// The secret is shown in this response only, which no cache keeps
	// (see noStore).
	h.renderAccount(w, r, func(v *page.NotifyView) {
		if err == nil {
			v.NewSecret, v.NewSecretHook = hook.Secret, hook.ID
		}
	}, err)
}

func (h *Handler) webhookUpdateForm(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	evs, err := eventChoice(r.PostForm["event"])
	if err == nil {
		err = h.store.WebhookUpdate(r.Context(), sessionFrom(r).User.ID, id, evs, r.PostFormValue("on") != "")
	}
	if errors.Is(err, store.ErrNotFound) {
		err = refuse(http.StatusNotFound, "You have no webhook %d.", id)
	}
	h.renderAccount(w, r, func(v *page.NotifyView) {
		if err == nil {
			v.Notice = fmt.Sprintf("Webhook %d is saved.", id)
		}
	}, err)
}

func (h *Handler) webhookDeleteForm(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.store.WebhookDelete(r.Context(), sessionFrom(r).User.ID, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/account#notifications", http.StatusSeeOther)
}

// notifyVerify opens a verification link: the token alone proves the
// address, whoever is logged in.
func (h *Handler) notifyVerify(w http.ResponseWriter, r *http.Request) {
	v := page.NotifyDoneView{Base: h.base(r, "E-mail address")}
	em, err := h.store.NotifyEmailVerify(r.Context(), notify.TokenHash(r.URL.Query().Get("token")))
	status := http.StatusOK
	switch {
	case errors.Is(err, store.ErrNotFound):
		status = http.StatusNotFound
		v.Heading, v.Message = "Link not valid", "This confirmation link was used already or replaced by a newer one."
	case err != nil:
		h.fail(w, r, err)
		return
	default:
		v.Heading = "Address confirmed"
		v.Message = fmt.Sprintf("Notifications may now go to %s. Choose which on your account page.", em.Address)
	}
	h.render(w, r, status, page.NotifyDone(v))
}

// notifyUnsubscribePage asks to confirm an unsubscribe link; the POST
// does it, as a mail program's one-click unsubscribe does (RFC 8058).
func (h *Handler) notifyUnsubscribePage(w http.ResponseWriter, r *http.Request) {
	tok := chi.URLParam(r, "token")
	v := page.NotifyDoneView{Base: h.base(r, "Unsubscribe")}
	em, err := h.store.NotifyEmailByUnsubscribe(r.Context(), tok)
	if errors.Is(err, store.ErrNotFound) {
		v.Heading, v.Message = "Link not valid", "This unsubscribe link belongs to no address any more."
		h.render(w, r, http.StatusNotFound, page.NotifyDone(v))
		return
	} else if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Heading = "Unsubscribe"
	v.Message = fmt.Sprintf("Stop every notification e-mail to %s?", em.Address)
	v.Action = "/notifications/unsubscribe/" + tok
	h.render(w, r, http.StatusOK, page.NotifyDone(v))
}

func (h *Handler) notifyUnsubscribe(w http.ResponseWriter, r *http.Request) {
	v := page.NotifyDoneView{Base: h.base(r, "Unsubscribe")}
	err := h.store.NotifyEmailUnsubscribe(r.Context(), chi.URLParam(r, "token"))
	if errors.Is(err, store.ErrNotFound) {
		v.Heading, v.Message = "Link not valid", "This unsubscribe link belongs to no address any more."
		h.render(w, r, http.StatusNotFound, page.NotifyDone(v))
		return
	} else if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Heading, v.Message = "Unsubscribed", "No more notification e-mail goes to this address. You can choose again on your account page."
	h.render(w, r, http.StatusOK, page.NotifyDone(v))
}
