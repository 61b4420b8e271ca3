package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// dummyHash is checked when the username is unknown, so a failed log-in
// takes as long whether or not the account exists.
const dummyHash = "$argon2id$v=19$m=32768,t=2,p=2$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// clientKey is the rate-limit key of a request's client address: the peer,
// or behind a trusted reverse proxy the address it names (see addrKey).
func (h *Handler) clientKey(r *http.Request) string {
	return "ip:" + addrKey(clientIP(r, h.cfg.TrustedProxies))
}

// accountKey is the rate-limit key of a username, whether or not the
// account exists (so the limit tells nothing about it).
func accountKey(username string) string {
	return "user:" + strings.ToLower(username)
}

// safeNext keeps redirects after log-in on this site: it returns next only
// when it is a path of this site, else "/". Browsers drop tabs and line
// breaks anywhere in a URL, trim control characters and spaces at its ends
// and read a backslash as "/", so "/\t/evil.example" would leave the site: any
// such character refuses next, then it must parse as a relative URL with
// no scheme, host or user and a path that starts with a single "/".
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsFunc(next, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '\\' }) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return "/"
	}
	return next
}

func (h *Handler) loginForm(w http.ResponseWriter, r *http.Request) {
	if sessionFrom(r) != nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, page.Login(page.AuthView{Base: h.base(r, "Log in"), Next: r.URL.Query().Get("next")}))
}

func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	v := page.AuthView{
		Base:     h.base(r, "Log in"),
		Username: strings.TrimSpace(r.PostFormValue("username")),
		Next:     r.PostFormValue("next"),
	}
	// The attempt counts before the password is checked, so parallel
	// guesses all count; a success gives its own attempt back.
	ipKey, userKey := h.clientKey(r), accountKey(v.Username)
	if ok, until := h.logins.take(h.now(), quota{ipKey, h.cfg.LoginAttempts}, quota{userKey, h.cfg.LoginAccountAttempts}); !ok {
		v.Error = "Too many failed log-ins from your address or for this account. Please try again after " + until.UTC().Format("15:04") + " UTC."
		w.Header().Set("Retry-After", strconv.Itoa(int(until.Sub(h.now()).Seconds())+1))
		h.render(w, r, http.StatusTooManyRequests, page.Login(v))
		return
	}
	u, err := h.store.UserGetByUsername(r.Context(), v.Username)
	hash := dummyHash
	switch {
	case err == nil:
		hash = u.PasswordHash
	case !errors.Is(err, store.ErrNotFound):
		h.logins.give(ipKey)
		h.logins.give(userKey)
		h.fail(w, r, err)
		return
	}
	password := r.PostFormValue("password")
	ok, err := checkPassword(hash, password)
	if errors.Is(err, errBadHash) {
		ok, err = false, nil // an account that cannot log in, such as "house"
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if !ok || u == nil {
		v.Error = "That username and password do not match."
		h.render(w, r, http.StatusUnauthorized, page.Login(v))
		return
	}
	// Only this attempt and this account's own failures are forgiven:
	// a success never clears what others guessed from the same address.
	h.logins.give(ipKey)
	h.logins.reset(userKey)
	if needsRehash(u.PasswordHash) {
		if err := h.rehash(r.Context(), u.ID, password); err != nil {
			h.logger.WarnContext(r.Context(), "rehash password", "user_id", u.ID, "err", err)
		}
	}
	if err := h.startSession(w, r, u.ID); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, safeNext(v.Next), http.StatusSeeOther)
}

func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		if err := h.store.SessionDelete(r.Context(), tokenHash(c.Value)); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// rehash stores password under the current argon2 parameters.
func (h *Handler) rehash(ctx context.Context, userID int64, password string) error {
	hash, err := hashPassword(password)
	if err != nil {
		return err
	}
	return h.store.UserSetPasswordHash(ctx, userID, hash)
}
