package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/broadside/broadside/internal/bytesize"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// userError is a refusal whose message is safe to show as it is.
type userError struct {
	status int
	msg    string
	// retryAfter, when positive, is sent as Retry-After (a limit).
	retryAfter time.Duration
}

func (e *userError) Error() string { return e.msg }

func refuse(status int, format string, args ...any) error {
	return &userError{status: status, msg: fmt.Sprintf(format, args...)}
}

// classify maps an error to the status and the message a user may see.
// Only unexpected errors are logged, and their text never leaves the server.
func (h *Handler) classify(r *http.Request, err error) (int, string) {
	var ue *userError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &ue):
		return ue.status, ue.msg
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "There is nothing here: it may never have existed, or it was removed."
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("The upload is larger than the limit of %s.", bytesize.Format(h.cfg.UploadMaxBytes))
	case store.Unavailable(err) && !h.databaseAnswers(r.Context()):
		h.logger.WarnContext(r.Context(), "database unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
		return http.StatusServiceUnavailable, unavailableMsg
	}
	h.logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	return http.StatusInternalServerError, "Something went wrong on our side. Please try again in a moment."
}

// setRetryAfter sends Retry-After for an error that carries a wait, in
// whole seconds, at least one.
func setRetryAfter(w http.ResponseWriter, err error) {
	var ue *userError
	if errors.As(err, &ue) && ue.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(ue.retryAfter.Seconds())+1))
	}
}

// unavailableMsg answers a request that needed the database while it
// could not be reached; with it goes a Retry-After of retryAfter seconds.
const (
	unavailableMsg = "Broadside is briefly unavailable: it cannot reach its database. " +
		"Nothing you did was lost. Please try again in a minute."
	retryAfter = "30"
)

// fail renders an error page for err.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if hasBearer(r) {
		// A script with an API token on a download (see tokenSession)
		// reads the reason as the API gives it, not as a page.
		h.apiFail(w, r, err)
		return
	}
	setRetryAfter(w, err)
	status, msg := h.classify(r, err)
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryAfter)
	}
	title := http.StatusText(status)
	h.render(w, r, status, page.ErrorPage(page.ErrorView{Base: h.base(r, title), Status: status, Message: msg}))
}

// apiFail answers an API request with {"error": "..."} for err.
func (h *Handler) apiFail(w http.ResponseWriter, r *http.Request, err error) {
	setRetryAfter(w, err)
	status, msg := h.classify(r, err)
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryAfter)
	}
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the client hung up; nothing left to tell it
}

// databaseAnswers pings the database, briefly: a network error may be the
// blob store's, which is no reason to say the database is down.
func (h *Handler) databaseAnswers(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	return h.store.Ping(ctx) == nil
}
