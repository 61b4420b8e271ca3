package web

import (
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	const ip, acct = "ip:10.0.0.1", "user:frank"
	cases := []struct {
		name     string
		failures []time.Duration // offsets of failed attempts on acct from t0
		// successOf, if set, logs in from the same address after the
		// second failure: it gives back its own attempt and resets only
		// its own account.
		successOf string
		at        time.Duration // when the next attempt comes
		blocked   bool
	}{
		{"under the limit", []time.Duration{0, 1, 2}, "", 3 * time.Second, false},
		{"at the limit within the window", []time.Duration{0, 1, 2, 3}, "", time.Minute, true},
		{"the window passed", []time.Duration{0, 1, 2, 3}, "", 10 * time.Minute, false},
		{"another account's success forgets nothing", []time.Duration{0, 1, 2, 3}, "user:mallory", time.Minute, true},
		{"the account's own success leaves the address's failures", []time.Duration{0, 1, 2, 3}, acct, time.Minute, true},
		{"failures in an old window do not count", []time.Duration{0, 1, 2, 11 * time.Minute}, "", 11 * time.Minute, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLimiter(10 * time.Minute)
			for i, f := range c.failures {
				if ok, _ := l.take(t0.Add(f), quota{ip, 4}, quota{acct, 100}); !ok {
					t.Fatalf("failure at %v refused", f)
				}
				if i == 1 && c.successOf != "" {
					if ok, _ := l.take(t0.Add(f), quota{ip, 4}, quota{c.successOf, 100}); !ok {
						t.Fatal("the success was refused")
					}
					l.give(ip)
					l.reset(c.successOf)
				}
			}
			ok, until := l.take(t0.Add(c.at), quota{ip, 4}, quota{acct, 100})
			if ok == c.blocked {
				t.Fatalf("allowed = %v, want %v", ok, !c.blocked)
			}
			if c.blocked && !until.Equal(t0.Add(10*time.Minute)) {
				t.Fatalf("blocked until %v, want the end of the window", until)
			}
			if ok, _ := l.take(t0.Add(c.at), quota{"ip:10.0.0.2", 4}); !ok {
				t.Fatal("another address is blocked too")
			}
		})
	}
}

func TestLimiterAccountQuota(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	l := newLimiter(time.Minute)
	// Three addresses, one account: the account's quota binds.
	for i, ip := range []string{"ip:a", "ip:b", "ip:c"} {
		if ok, _ := l.take(t0, quota{ip, 10}, quota{"user:frank", 3}); !ok {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	if ok, _ := l.take(t0, quota{"ip:d", 10}, quota{"user:frank", 3}); ok {
		t.Fatal("a fourth address got a guess at the account")
	}
	// A refused attempt counts against nothing.
	if ok, _ := l.take(t0, quota{"ip:d", 1}, quota{"user:other", 3}); !ok {
		t.Fatal("the refused attempt was counted against the address")
	}
}

func TestClientIP(t *testing.T) {
	proxies, err := ParseTrustedProxies("10.0.0.0/8, 192.168.1.1 ,::1")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, peer string
		xff        []string
		trusted    []netip.Prefix
		want       string
	}{
		{"no proxies: the peer", "203.0.113.7:5555", []string{"198.51.100.1"}, nil, "203.0.113.7"},
		{"an untrusted peer's header is ignored", "203.0.113.7:5555", []string{"198.51.100.1"}, proxies, "203.0.113.7"},
		{"a trusted proxy names the client", "10.1.2.3:5555", []string{"198.51.100.1"}, proxies, "198.51.100.1"},
		{"the right-most untrusted hop, not what the client wrote", "10.1.2.3:5555", []string{"1.2.3.4, 198.51.100.1"}, proxies, "198.51.100.1"},
		{"through two trusted proxies", "10.1.2.3:5555", []string{"198.51.100.1, 192.168.1.1"}, proxies, "198.51.100.1"},
		{"several headers read as one list", "10.1.2.3:5555", []string{"1.2.3.4", "198.51.100.9"}, proxies, "198.51.100.9"},
		{"garbage from the proxy: the proxy", "10.1.2.3:5555", []string{"not-an-ip"}, proxies, "10.1.2.3"},
		{"no header from a trusted proxy: the proxy", "10.1.2.3:5555", nil, proxies, "10.1.2.3"},
		{"IPv6 proxy", "[::1]:5555", []string{"2001:db8::1"}, proxies, "2001:db8::1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/login", nil)
			r.RemoteAddr = c.peer
			for _, v := range c.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := clientIP(r, c.trusted); got != c.want {
				t.Fatalf("clientIP = %q, want %q", got, c.want)
			}
		})
	}
	if _, err := ParseTrustedProxies("10.0.0.0/33"); err == nil {
		t.Fatal("a bad prefix was accepted")
	}
}
