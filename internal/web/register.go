package web

import (
	_ "embed"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

var usernamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{2,31}$`)

// reservedNames cannot be registered: "house" owns the starter bots.
var reservedNames = map[string]bool{"house": true, "admin": true, "root": true, "api": true}

//go:embed common_passwords.txt
var commonPasswordList string

// commonPasswords are refused at registration: they are the first guesses
// of every attacker, whatever the rate limit.
var commonPasswords = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(commonPasswordList, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m
}()

// validateRegistration returns a message for the first problem, or "".
func validateRegistration(username, email, password string) string {
	switch {
	case !usernamePattern.MatchString(username):
		return "Choose a username of 3 to 32 letters, digits, dots, dashes or underscores, starting with a letter or digit."
	case reservedNames[strings.ToLower(username)]:
		return "That username is reserved. Please choose another."
	case email != "" && (len(email) > 254 || !strings.Contains(email, "@")):
		return "That email address does not look right."
	case len(password) < 8:
		return "Choose a password of at least 8 characters."
	case len(password) > 1024:
		return "That password is too long (1024 characters at most)."
	case commonPasswords[strings.ToLower(password)] || strings.EqualFold(password, username):
		return "That password is one of the first any attacker tries. Please choose another."
	}
	return ""
}

func (h *Handler) registerForm(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, page.Register(page.AuthView{Base: h.base(r, "Register"), Next: r.URL.Query().Get("next")}))
}

func (h *Handler) register(w http.ResponseWriter, r *http.Request) {
	v := page.AuthView{
		Base:     h.base(r, "Register"),
		Username: strings.TrimSpace(r.PostFormValue("username")),
		Email:    strings.TrimSpace(r.PostFormValue("email")),
		Next:     r.PostFormValue("next"),
	}
	password := r.PostFormValue("password")
	if v.Error = validateRegistration(v.Username, v.Email, password); v.Error != "" {
		h.render(w, r, http.StatusUnprocessableEntity, page.Register(v))
		return
	}
	// Counted after the form is valid, before the costly hash.
	if ok, until := h.registers.take(h.now(), quota{h.clientKey(r), h.cfg.RegisterAttempts}); !ok {
		v.Error = "Too many accounts registered from your address. Please try again after " + until.UTC().Format("15:04") + " UTC."
		w.Header().Set("Retry-After", strconv.Itoa(int(until.Sub(h.now()).Seconds())+1))
		h.render(w, r, http.StatusTooManyRequests, page.Register(v))
		return
	}
	hash, err := hashPassword(password)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	u, err := h.store.UserCreate(r.Context(), store.UserCreateParams{Username: v.Username, Email: v.Email, PasswordHash: hash})
	if errors.Is(err, store.ErrConflict) {
		v.Error = "That username is taken. Please choose another."
		h.render(w, r, http.StatusConflict, page.Register(v))
		return
	} else if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.startSession(w, r, u.ID); err != nil {
		h.fail(w, r, err)
		return
	}
	h.logger.InfoContext(r.Context(), "user registered", "user_id", u.ID, "username", u.Username)
	to := "/account"
	if v.Next != "" {
		to = safeNext(v.Next)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}
