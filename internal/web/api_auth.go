package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/broadside/broadside/internal/store"
)

func apiUserFrom(r *http.Request) *store.User {
	u, _ := r.Context().Value(apiUserKey).(*store.User)
	return u
}

// apiViewerID is the id of the token's user, 0 for an anonymous reader:
// what pages show to whom depends on it.
func apiViewerID(r *http.Request) int64 {
	if u := apiUserFrom(r); u != nil {
		return u.ID
	}
	return 0
}

// apiAuth reads an optional "Authorization: Bearer <token>". A token that
// is sent but unknown is refused, rather than treated as anonymous.
func (h *Handler) apiAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			next.ServeHTTP(w, r)
			return
		}
		u, ok := h.tokenUser(w, r)
		if !ok {
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), apiUserKey, u)))
	})
}

// tokenUser is the user of the request's bearer token; when there is none
// it answers 401 itself and returns ok false.
func (h *Handler) tokenUser(w http.ResponseWriter, r *http.Request) (u *store.User, ok bool) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		h.apiFail(w, r, refuse(http.StatusUnauthorized, `Send the token as "Authorization: Bearer <token>".`))
		return nil, false
	}
	u, err := h.store.APITokenUser(r.Context(), tokenHash(strings.TrimSpace(tok)))
	if errors.Is(err, store.ErrNotFound) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		h.apiFail(w, r, refuse(http.StatusUnauthorized, "That API token is not valid (revoked or mistyped)."))
		return nil, false
	} else if err != nil {
		h.apiFail(w, r, err)
		return nil, false
	}
	return u, true
}

// tokenSession lets an API token stand for a logged-in session on the
// downloads a script fetches beside the API (replays with the owner's
// logs, build logs and their event streams): with "Authorization: Bearer",
// the request is the token's user's, whatever its cookies say. It is put
// on those GET routes only; a token never answers a form.
func (h *Handler) tokenSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only a bearer token: a proxy's Basic credentials that a browser
		// repeats on every request are not the page's business.
		if !hasBearer(r) {
			next.ServeHTTP(w, r)
			return
		}
		u, ok := h.tokenUser(w, r)
		if !ok {
			return
		}
		s := &store.Session{User: *u}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey, s)))
	})
}

// apiRequireUser refuses API writes without a token.
func (h *Handler) apiRequireUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if apiUserFrom(r) == nil {
			w.Header().Set("WWW-Authenticate", "Bearer")
			h.apiFail(w, r, refuse(http.StatusUnauthorized, "This needs an API token: create one on your account page."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// apiMe is the token's user: what a client checks a token with.
func (h *Handler) apiMe(w http.ResponseWriter, r *http.Request) {
	u := apiUserFrom(r)
	writeJSON(w, http.StatusOK, map[string]any{
		"id": u.ID, "username": u.Username, "role": u.Role, "created_at": u.CreatedAt,
	})
}

// hasBearer reports whether the request carries an API token.
func hasBearer(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ")
}
