package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/broadside/broadside/internal/event"
	"github.com/broadside/broadside/internal/store"
)

type apiEmail struct {
	Address  string   `json:"address"`
	Verified bool     `json:"verified"`
	Events   []string `json:"events"`
}

type apiWebhook struct {
	ID             int64     `json:"id"`
	URL            string    `json:"url"`
	Events         []string  `json:"events"`
	Enabled        bool      `json:"enabled"`
	DisabledReason string    `json:"disabled_reason,omitempty"`
	Failures       int       `json:"failures"`
	CreatedAt      time.Time `json:"created_at"`
	// Secret is only in the answer that creates the hook.
	Secret string `json:"secret,omitempty"`
}

type apiDelivery struct {
	ID          int64      `json:"id"`
	WebhookID   int64      `json:"webhook_id"`
	EventID     int64      `json:"event_id"`
	EventType   string     `json:"event_type"`
	Status      string     `json:"status"`
	Attempts    int        `json:"attempts"`
	StatusCode  *int       `json:"status_code"`
	Error       string     `json:"error"`
	AttemptedAt *time.Time `json:"attempted_at"`
}

func toAPIEmail(em *store.NotifyEmail) *apiEmail {
	if em == nil {
		return nil
	}
	return &apiEmail{Address: em.Address, Verified: em.VerifiedAt != nil, Events: orEmpty(em.Events)}
}

func toAPIWebhook(w *store.Webhook) apiWebhook {
	return apiWebhook{ID: w.ID, URL: w.URL, Events: orEmpty(w.Events), Enabled: w.DisabledAt == nil,
		DisabledReason: w.DisabledReason, Failures: w.Failures, CreatedAt: w.CreatedAt}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// decodeBody reads a small JSON body into v.
func decodeBody(r *http.Request, v any, help string) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return refuse(http.StatusBadRequest, "Send %s as the JSON body.", help)
	}
	return nil
}

// apiNotifications returns the user's notification settings and the last
// webhook deliveries.
func (h *Handler) apiNotifications(w http.ResponseWriter, r *http.Request) {
	v, err := h.notifyView(r.Context(), apiUserFrom(r).ID)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	types := []string{}
	for _, t := range event.Types() {
		types = append(types, string(t))
	}
	hooks := []apiWebhook{}
	for i := range v.Webhooks {
		hooks = append(hooks, toAPIWebhook(&v.Webhooks[i]))
	}
	dels := []apiDelivery{}
	for _, d := range v.Deliveries {
		dels = append(dels, apiDelivery{ID: d.ID, WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType,
			Status: d.Status, Attempts: d.Attempts, StatusCode: d.StatusCode, Error: d.Error, AttemptedAt: d.AttemptedAt})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"event_types": types, "email_available": v.EmailOn, "email": toAPIEmail(v.Email),
		"webhooks": hooks, "deliveries": dels,
	})
}

// apiNotifyEmail sets the address (a new one is sent a confirmation link)
// and the events e-mailed.
func (h *Handler) apiNotifyEmail(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Address *string   `json:"address"`
		Events  *[]string `json:"events"`
	}
	if err := decodeBody(r, &body, `{"address": "you@example.org", "events": ["build.failed"]}`); err != nil {
		h.apiFail(w, r, err)
		return
	}
	ctx, uid := r.Context(), apiUserFrom(r).ID
	cur, err := h.store.NotifyEmailGet(ctx, uid)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		h.apiFail(w, r, err)
		return
	}
	if body.Address != nil && (cur == nil || cur.Address != *body.Address) {
		if _, err := h.setEmail(ctx, uid, *body.Address); err != nil {
			h.apiFail(w, r, err)
			return
		}
	}
	if body.Events != nil {
		evs, err := eventChoice(*body.Events)
		if err == nil {
			err = h.store.NotifyEmailSetEvents(ctx, uid, evs)
		}
		if errors.Is(err, store.ErrNotFound) {
			err = refuse(http.StatusConflict, "Give an e-mail address first.")
		}
		if err != nil {
			h.apiFail(w, r, err)
			return
		}
	}
	em, err := h.store.NotifyEmailGet(ctx, uid)
	if errors.Is(err, store.ErrNotFound) {
		err = refuse(http.StatusConflict, "Give an e-mail address first.")
	}
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toAPIEmail(em))
}

// apiWebhookCreate adds a hook; the answer holds its secret, once.
func (h *Handler) apiWebhookCreate(w http.ResponseWriter, r *http.Request) {
	var body struct {
		URL    string   `json:"url"`
		Events []string `json:"events"`
	}
	if err := decodeBody(r, &body, `{"url": "https://…", "events": ["build.finished"]}`); err != nil {
		h.apiFail(w, r, err)
		return
	}
	hook, err := h.createWebhook(r.Context(), apiUserFrom(r).ID, body.URL, body.Events)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	out := toAPIWebhook(hook)
	out.Secret = hook.Secret
	writeJSON(w, http.StatusCreated, out)
}

// apiWebhookUpdate changes a hook's events or switches it on or off; on
// again clears its failures.
func (h *Handler) apiWebhookUpdate(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	var body struct {
		Events  *[]string `json:"events"`
		Enabled *bool     `json:"enabled"`
	}
	if err := decodeBody(r, &body, `{"events": [...], "enabled": true}`); err != nil {
		h.apiFail(w, r, err)
		return
	}
	ctx, uid := r.Context(), apiUserFrom(r).ID
	hook, err := h.store.WebhookGetByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && hook.UserID != uid) {
		h.apiFail(w, r, refuse(http.StatusNotFound, "You have no webhook %d.", id))
		return
	} else if err != nil {
		h.apiFail(w, r, err)
		return
	}
	evs, on := hook.Events, hook.DisabledAt == nil
	if body.Events != nil {
		if evs, err = eventChoice(*body.Events); err != nil {
			h.apiFail(w, r, err)
			return
		}
	}
	if body.Enabled != nil {
		on = *body.Enabled
	}
	if err := h.store.WebhookUpdate(ctx, uid, id, evs, on); err != nil {
		h.apiFail(w, r, err)
		return
	}
	if hook, err = h.store.WebhookGetByID(ctx, id); err != nil {
		h.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toAPIWebhook(hook))
}

// apiWebhookDelete deletes a hook and its deliveries.
func (h *Handler) apiWebhookDelete(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	if err := h.store.WebhookDelete(r.Context(), apiUserFrom(r).ID, id); errors.Is(err, store.ErrNotFound) {
		h.apiFail(w, r, refuse(http.StatusNotFound, "You have no webhook %d.", id))
		return
	} else if err != nil {
		h.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"deleted": id})
}
