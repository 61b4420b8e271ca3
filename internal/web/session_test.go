package web

import (
	"crypto/tls"
	"net/http/httptest"
	"testing"

	"github.com/broadside/broadside/internal/game/rulesets"
)

func TestCookieSecure(t *testing.T) {
	on, off := true, false
	cases := []struct {
		name   string
		force  *bool
		tls    bool
		proto  string
		secure bool
	}{
		{"plain HTTP", nil, false, "", false},
		{"TLS", nil, true, "", true},
		{"behind a proxy ending TLS", nil, false, "https", true},
		{"COOKIE_SECURE=true over plain HTTP", &on, false, "", true},
		{"COOKIE_SECURE=false over TLS", &off, true, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig(rulesets.Registry())
			cfg.CookieSecure = c.force
			h := &Handler{cfg: cfg}
			r := httptest.NewRequest("GET", "/", nil)
			if c.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if c.proto != "" {
				r.Header.Set("X-Forwarded-Proto", c.proto)
			}
			w := httptest.NewRecorder()
			h.setCookie(w, r, sessionCookie, "v", 60)
			cookies := w.Result().Cookies()
			if len(cookies) != 1 || cookies[0].Secure != c.secure || !cookies[0].HttpOnly {
				t.Fatalf("cookies %+v, want one HttpOnly cookie with Secure=%v", cookies, c.secure)
			}
		})
	}
}
