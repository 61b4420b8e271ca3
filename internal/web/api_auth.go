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
		auth := r.Header.Get("Authorization")
		if auth == "" {
			next.ServeHTTP(w, r)
			return
		}
		tok, ok := strings.CutPrefix(auth, "Bearer ")
		if !ok || tok == "" {
			h.apiFail(w, r, refuse(http.StatusUnauthorized, `Send the token as "Authorization: Bearer <token>".`))
			return
		}
		u, err := h.store.APITokenUser(r.Context(), tokenHash(strings.TrimSpace(tok)))
		if errors.Is(err, store.ErrNotFound) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			h.apiFail(w, r, refuse(http.StatusUnauthorized, "That API token is not valid (revoked or mistyped)."))
			return
		} else if err != nil {
			h.apiFail(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), apiUserKey, u)))
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
