package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestRegister(t *testing.T) {
	b := setup(t, nil)
	br := b.browser(t)
	br.register("alice")
	res := br.get("/account")
	if res.status != http.StatusOK || !strings.Contains(res.body, "alice") {
		t.Fatalf("account after register: %d", res.status)
	}

	cases := []struct {
		name, username, password, want string
		status                         int
	}{
		{"short username", "al", "correct horse", "3 to 32", http.StatusUnprocessableEntity},
		{"username with spaces", "al ice", "correct horse", "3 to 32", http.StatusUnprocessableEntity},
		{"reserved name owns the house bots", "House", "correct horse", "reserved", http.StatusUnprocessableEntity},
		{"short password", "bobby", "short", "at least 8", http.StatusUnprocessableEntity},
		{"taken in another letter case", "ALICE", "correct horse", "taken", http.StatusConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := b.count(t, "users")
			res := b.browser(t).post("/register", url.Values{"username": {c.username}, "password": {c.password}, "csrf_token": {"-"}})
			if res.status != c.status || !strings.Contains(res.body, c.want) {
				t.Fatalf("status %d, want %d with %q in the page", res.status, c.status, c.want)
			}
			if after := b.count(t, "users"); after != before {
				t.Fatalf("users went from %d to %d on a refused registration", before, after)
			}
		})
	}
}

func TestSessionCookie(t *testing.T) {
	b := setup(t, nil)
	br := b.browser(t)
	res := br.post("/register", url.Values{"username": {"carol"}, "password": {"correct horse"}, "csrf_token": {"-"}})
	var found bool
	for _, c := range (&http.Response{Header: res.header}).Cookies() {
		if c.Name != "broadside_session" {
			continue
		}
		found = true
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.MaxAge <= 0 {
			t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Lax and a lifetime", c)
		}
		if c.Secure {
			t.Fatalf("session cookie is Secure over plain HTTP; the browser would drop it")
		}
	}
	if !found {
		t.Fatal("no session cookie after registering")
	}
	var hashLen int
	if err := b.st.DB().QueryRow(b.ctx, `SELECT length(token_hash) FROM sessions`).Scan(&hashLen); err != nil || hashLen != 32 {
		t.Fatalf("stored session token: length %d, %v; want a 32-byte hash", hashLen, err)
	}
}

func TestCSRF(t *testing.T) {
	b := setup(t, nil)
	br := b.browser(t)
	br.register("dave")
	cases := []struct {
		name  string
		path  string
		token string
		site  string
	}{
		{"register without a token", "/register", "", ""},
		{"login with a wrong token", "/login", "forged", ""},
		{"logout without a token", "/logout", "", ""},
		{"token creation without a token", "/account/tokens", "", ""},
		{"cross-site post with a valid token", "/account/tokens", "-", "cross-site"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			form := url.Values{"username": {"mallory"}, "password": {"correct horse"}, "name": {"x"}}
			if c.token == "-" {
				form.Set("csrf_token", br.token(pageOf(c.path)))
			} else if c.token != "" {
				form.Set("csrf_token", c.token)
			}
			req, _ := http.NewRequest(http.MethodPost, br.base+c.path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if c.site != "" {
				req.Header.Set("Sec-Fetch-Site", c.site)
			}
			res := br.do(req)
			if res.status != http.StatusForbidden {
				t.Fatalf("status %d, want 403", res.status)
			}
		})
	}
	if n := b.count(t, "api_tokens"); n != 0 {
		t.Fatalf("%d API tokens made by forged posts", n)
	}
	if n := b.count(t, "users"); n != 1 {
		t.Fatalf("%d users, want only dave", n)
	}
	if res := br.get("/account"); res.status != http.StatusOK {
		t.Fatalf("forged logout ended the session: /account is %d", res.status)
	}
}

func TestLogin(t *testing.T) {
	b := setup(t, nil)
	b.browser(t).register("erin")
	br := b.browser(t)

	res := br.get("/account")
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/login?next=%2Faccount" {
		t.Fatalf("account before login: %d to %q, want a redirect to the log-in page", res.status, res.header.Get("Location"))
	}
	res = br.post("/login", url.Values{"username": {"erin"}, "password": {"wrong password"}, "csrf_token": {"-"}})
	if res.status != http.StatusUnauthorized || !strings.Contains(res.body, "do not match") {
		t.Fatalf("wrong password: %d", res.status)
	}
	res = br.post("/login", url.Values{"username": {"nobody"}, "password": {"wrong password"}, "csrf_token": {"-"}})
	if res.status != http.StatusUnauthorized || !strings.Contains(res.body, "do not match") {
		t.Fatalf("unknown user: %d (must read the same as a wrong password)", res.status)
	}
	res = br.post("/login", url.Values{"username": {"ERIN"}, "password": {"correct horse"}, "next": {"//evil.example/"}, "csrf_token": {"-"}})
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/" {
		t.Fatalf("login: %d to %q, want 303 to / (an off-site next is dropped)", res.status, res.header.Get("Location"))
	}
	if res := br.get("/account"); res.status != http.StatusOK {
		t.Fatalf("account after login: %d", res.status)
	}
	if res := br.post("/logout", url.Values{"csrf_token": {"-"}}); res.status != http.StatusSeeOther {
		t.Fatalf("logout: %d", res.status)
	}
	if res := br.get("/account"); res.status != http.StatusSeeOther {
		t.Fatalf("account after logout: %d, want a redirect", res.status)
	}
	if n := b.count(t, "sessions"); n != 1 {
		t.Fatalf("%d sessions left, want only the registration's", n)
	}
}

func TestLoginRateLimit(t *testing.T) {
	b := setup(t, nil) // 5 failures per window
	b.browser(t).register("frank")
	br := b.browser(t)
	for i := range 5 {
		res := br.post("/login", url.Values{"username": {"frank"}, "password": {"guess"}, "csrf_token": {"-"}})
		if res.status != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d", i+1, res.status)
		}
	}
	res := br.post("/login", url.Values{"username": {"frank"}, "password": {"correct horse"}, "csrf_token": {"-"}})
	if res.status != http.StatusTooManyRequests || !strings.Contains(res.body, "Too many failed log-ins") {
		t.Fatalf("after 5 failures: %d, want 429 even with the right password", res.status)
	}
	if secs, err := strconv.Atoi(res.header.Get("Retry-After")); err != nil || secs <= 0 {
		t.Fatalf("Retry-After %q, want a number of seconds", res.header.Get("Retry-After"))
	}
}
