package web_test

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/broadside/broadside/internal/web"
)

// loginAs posts the log-in form with a client address named by a trusted
// proxy's X-Forwarded-For (empty: none).
func (br *browser) loginAs(user, password, forwardedFor string) response {
	br.t.Helper()
	form := url.Values{"username": {user}, "password": {password}, "csrf_token": {br.token("/login")}}
	req, _ := http.NewRequest(http.MethodPost, br.base+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", forwardedFor)
	}
	return br.do(req)
}

// A success of the attacker's own account does not clear the failures of
// the address; before, logging in every few guesses unblocked it.
func TestLoginLimitNotResetByOwnAccount(t *testing.T) {
	b := setup(t, nil) // 5 failures per address
	b.browser(t).register("frank")
	b.browser(t).register("mallory")
	for round := range 3 {
		for i := range 2 {
			if res := b.browser(t).loginAs("frank", fmt.Sprintf("guess %d-%d", round, i), ""); res.status != http.StatusUnauthorized && round < 2 {
				t.Fatalf("guess %d-%d: %d", round, i, res.status)
			}
		}
		if res := b.browser(t).loginAs("mallory", "correct horse", ""); res.status != http.StatusSeeOther && round < 2 {
			t.Fatalf("mallory's own log-in %d: %d", round, res.status)
		}
	}
	// Six guesses at frank, each pair followed by mallory's own log-in.
	if res := b.browser(t).loginAs("frank", "guess 7", ""); res.status != http.StatusTooManyRequests {
		t.Fatalf("after 6 wrong guesses with successes between them: %d, want 429", res.status)
	}
}

// Parallel guesses are counted before any of them is checked.
func TestLoginLimitParallel(t *testing.T) {
	b := setup(t, nil) // 5 failures per address
	b.browser(t).register("frank")
	br := b.browser(t)
	const n = 15
	tokens := make([]string, n)
	for i := range tokens {
		tokens[i] = br.token("/login")
	}
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			form := url.Values{"username": {"frank"}, "password": {fmt.Sprint("guess ", i)}, "csrf_token": {tokens[i]}}
			req, _ := http.NewRequest(http.MethodPost, br.base+"/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			res, err := br.c.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			statuses[i] = res.StatusCode
		})
	}
	wg.Wait()
	checked := 0
	for _, s := range statuses {
		if s == http.StatusUnauthorized {
			checked++
		}
	}
	if checked != 5 {
		t.Fatalf("%d of %d parallel guesses were checked, want the limit of 5: %v", checked, n, statuses)
	}
}

// Behind a trusted proxy each client is counted on its own, and one
// account takes at most LoginAccountAttempts guesses from all addresses.
func TestLoginLimitPerAccountBehindProxy(t *testing.T) {
	b := setupWith(t, nil, func(c *web.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
		c.LoginAccountAttempts = 8
	})
	b.browser(t).register("frank")
	b.browser(t).register("grace")
	for i := range 5 {
		if res := b.browser(t).loginAs("frank", "guess", "203.0.113.1"); res.status != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d", i, res.status)
		}
	}
	if res := b.browser(t).loginAs("grace", "guess", "203.0.113.1"); res.status != http.StatusTooManyRequests {
		t.Fatalf("sixth guess from one client: %d, want 429", res.status)
	}
	if res := b.browser(t).loginAs("grace", "correct horse", "203.0.113.2"); res.status != http.StatusSeeOther {
		t.Fatalf("another client behind the same proxy: %d, want a log-in", res.status)
	}
	// Three more addresses guess at frank: eight in all, then the account
	// is closed from anywhere, also to a sixth address.
	for i, ip := range []string{"198.51.100.1", "198.51.100.2", "198.51.100.3"} {
		if res := b.browser(t).loginAs("frank", "guess", ip); res.status != http.StatusUnauthorized {
			t.Fatalf("guess from %s (%d): %d", ip, i, res.status)
		}
	}
	if res := b.browser(t).loginAs("frank", "correct horse", "198.51.100.4"); res.status != http.StatusTooManyRequests {
		t.Fatalf("ninth attempt at the account: %d, want 429", res.status)
	}
}

func TestRegisterLimits(t *testing.T) {
	b := setupWith(t, nil, func(c *web.Config) { c.RegisterAttempts = 3 })
	br := b.browser(t)
	for _, pw := range []string{"password1", "Password123", "QWERTYUIOP", "DoraDora"} {
		res := br.post("/register", url.Values{"username": {"doradora"}, "password": {pw}, "csrf_token": {"-"}})
		if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "first any attacker tries") {
			t.Errorf("password %q: %d, want 422 refusing a common password", pw, res.status)
		}
	}
	for i := range 3 {
		b.browser(t).register(fmt.Sprintf("user%d", i))
	}
	res := b.browser(t).post("/register", url.Values{"username": {"user9"}, "password": {"correct horse"}, "csrf_token": {"-"}})
	if res.status != http.StatusTooManyRequests {
		t.Fatalf("fourth registration from one address: %d, want 429", res.status)
	}
	if n := b.count(t, "users"); n != 3 {
		t.Fatalf("%d users, want 3", n)
	}
}

// argonHash makes a hash with the given parameters, as an older portal or a
// tampered row would hold.
func argonHash(password string, m, tm uint32, p uint8) string {
	salt := make([]byte, 16)
	rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, tm, m, p, 32)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, m, tm, p, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// A hash with old parameters is replaced at the next log-in; one with
// parameters out of bounds is refused at once instead of computed.
func TestLoginRehashAndBounds(t *testing.T) {
	b := setup(t, nil)
	b.browser(t).register("frank")
	b.browser(t).register("tampered")
	old := argonHash("correct horse", 16*1024, 1, 1)
	set := func(user, hash string) {
		t.Helper()
		if _, err := b.st.DB().Exec(b.ctx, `UPDATE users SET password_hash = $2 WHERE username = $1`, user, hash); err != nil {
			t.Fatal(err)
		}
	}
	set("frank", old)
	if res := b.browser(t).loginAs("frank", "correct horse", ""); res.status != http.StatusSeeOther {
		t.Fatalf("log-in with an old hash: %d", res.status)
	}
	var now string
	if err := b.st.DB().QueryRow(b.ctx, `SELECT password_hash FROM users WHERE username = 'frank'`).Scan(&now); err != nil {
		t.Fatal(err)
	}
	if now == old || !strings.Contains(now, "$m=32768,t=2,p=2$") {
		t.Fatalf("hash after log-in: %s, want the current parameters", now)
	}
	if res := b.browser(t).loginAs("frank", "correct horse", ""); res.status != http.StatusSeeOther {
		t.Fatalf("log-in with the new hash: %d", res.status)
	}

	// 4 GiB and 1000 passes would take minutes and the machine's memory.
	set("tampered", strings.Replace(old, "m=16384,t=1,p=1", "m=4194304,t=1000,p=1", 1))
	start := time.Now()
	if res := b.browser(t).loginAs("tampered", "correct horse", ""); res.status != http.StatusUnauthorized {
		t.Fatalf("log-in with a tampered hash: %d, want 401", res.status)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the tampered hash took %v", d)
	}
}

// TestRegisterLimitIPv6Prefix: behind a trusted proxy, registrations from
// addresses of one IPv6 /64 count together, as one subscriber's; another
// /64 and IPv4 addresses have their own allowance.
func TestRegisterLimitIPv6Prefix(t *testing.T) {
	b := setupWith(t, nil, func(c *web.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
		c.RegisterAttempts = 3
	})
	register := func(name, from string) int {
		t.Helper()
		br := b.browser(t)
		form := url.Values{"username": {name}, "password": {"correct horse"}, "csrf_token": {br.token("/register")}}
		req, _ := http.NewRequest(http.MethodPost, br.base+"/register", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", from)
		return br.do(req).status
	}
	for i, ip := range []string{"2001:db8:1:2::a", "2001:db8:1:2::b", "2001:db8:1:2:ffff:ffff:ffff:ffff"} {
		if s := register(fmt.Sprintf("six%d", i), ip); s != http.StatusSeeOther {
			t.Fatalf("registration %d from %s: %d", i, ip, s)
		}
	}
	for _, ip := range []string{"2001:db8:1:2::c", "2001:db8:1:2:1234::1", "2001:DB8:1:2::d%eth0"} {
		if s := register("again", ip); s != http.StatusTooManyRequests {
			t.Errorf("a fourth registration from %s in the same /64: %d, want 429", ip, s)
		}
	}
	for i, ip := range []string{"2001:db8:1:3::a", "192.0.2.1", "192.0.2.2"} {
		if s := register(fmt.Sprintf("other%d", i), ip); s != http.StatusSeeOther {
			t.Errorf("registration from %s: %d, want it allowed", ip, s)
		}
	}
}
