package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/broadside/broadside/internal/store"
)

const (
	sessionCookie = "broadside_session"
	// csrfCookie carries the form token of visitors who are not logged in;
	// a session keeps its own token in the database.
	csrfCookie = "broadside_csrf"
	csrfField  = "csrf_token"
)

type ctxKey int

const (
	sessionKey ctxKey = iota
	csrfKey
	apiUserKey
)

// newToken returns 32 random bytes, URL-safe encoded.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// tokenHash is what the database keeps of a session or API token.
func tokenHash(tok string) []byte {
	sum := sha256.Sum256([]byte(tok))
	return sum[:]
}

func sessionFrom(r *http.Request) *store.Session {
	s, _ := r.Context().Value(sessionKey).(*store.Session)
	return s
}

func csrfToken(r *http.Request) string {
	t, _ := r.Context().Value(csrfKey).(string)
	return t
}

func (h *Handler) secure(r *http.Request) bool {
	if h.cfg.CookieSecure != nil {
		return *h.cfg.CookieSecure
	}
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// setCookie sets an HttpOnly cookie; maxAge is in seconds, 0 for a browser
// session cookie, negative to delete it.
func (h *Handler) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteLaxMode,
	})
}

// withSession loads the visitor's session, and gives visitors without one
// a form token cookie.
func (h *Handler) withSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
			s, err := h.store.SessionGet(ctx, tokenHash(c.Value))
			switch {
			case err == nil:
				ctx = context.WithValue(ctx, sessionKey, s)
				next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, csrfKey, s.CSRFToken)))
				return
			case !errors.Is(err, store.ErrNotFound):
				h.fail(w, r, err)
				return
			}
			h.setCookie(w, r, sessionCookie, "", -1) // expired or logged out elsewhere
		}
		tok := ""
		if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) >= 32 {
			tok = c.Value
		} else {
			var err error
			if tok, err = newToken(); err != nil {
				h.fail(w, r, err)
				return
			}
			h.setCookie(w, r, csrfCookie, tok, 0)
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, csrfKey, tok)))
	})
}

// checkCSRF refuses a form post whose token does not match the visitor's.
// It also caps the request body, so a form cannot be used to send gigabytes.
func (h *Handler) checkCSRF(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, h.cfg.UploadMaxBytes+1<<20)
		var err error
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
			err = r.ParseMultipartForm(8 << 20)
		} else {
			err = r.ParseForm()
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			switch {
			case errors.As(err, &tooBig) && r.URL.Path == "/bots/new":
				h.uploadTooLarge(w, r)
			case errors.As(err, &tooBig):
				h.fail(w, r, err)
			default:
				h.fail(w, r, refuse(http.StatusBadRequest, "The form could not be read. Please try again."))
			}
			return
		}
		want := csrfToken(r)
		got := r.PostFormValue(csrfField)
		if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
			h.fail(w, r, refuse(http.StatusForbidden,
				"This form has expired or was sent from another site. Please reload the page and try again."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireUser sends visitors who are not logged in to the log-in page.
func (h *Handler) requireUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sessionFrom(r) == nil {
			if r.Method != http.MethodGet {
				h.fail(w, r, refuse(http.StatusUnauthorized, "Please log in first."))
				return
			}
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// startSession logs a user in on this browser.
func (h *Handler) startSession(w http.ResponseWriter, r *http.Request, userID int64) error {
	tok, err := newToken()
	if err != nil {
		return err
	}
	csrf, err := newToken()
	if err != nil {
		return err
	}
	if err := h.store.SessionCreate(r.Context(), tokenHash(tok), userID, csrf, h.now().Add(h.cfg.SessionTTL)); err != nil {
		return fmt.Errorf("start session of user %d: %w", userID, err)
	}
	h.setCookie(w, r, sessionCookie, tok, int(h.cfg.SessionTTL.Seconds()))
	return nil
}
