package notify_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/notify"
)

func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":1,"type":"build.finished"}`)
	ts := strconv.FormatInt(now.Unix(), 10)
	good := notify.Sign("whsec_x", now.Unix(), body)
	cases := []struct {
		name, secret, sig, ts string
		body                  []byte
		at                    time.Time
		ok                    bool
	}{
		{"as signed", "whsec_x", good, ts, body, now, true},
		{"4 minutes later", "whsec_x", good, ts, body, now.Add(4 * time.Minute), true},
		{"replayed 6 minutes later", "whsec_x", good, ts, body, now.Add(6 * time.Minute), false},
		{"another secret", "whsec_y", good, ts, body, now, false},
		{"body changed", "whsec_x", good, ts, []byte(`{"id":2,"type":"build.finished"}`), now, false},
		{"timestamp changed", "whsec_x", good, strconv.FormatInt(now.Unix()+1, 10), body, now, false},
		{"no prefix", "whsec_x", good[len("sha256="):], ts, body, now, false},
		{"timestamp not a number", "whsec_x", good, "soon", body, now, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := notify.Verify(c.secret, c.sig, c.ts, c.body, c.at, 5*time.Minute)
			if (err == nil) != c.ok || (err != nil && !errors.Is(err, notify.ErrBadSignature)) {
				t.Fatalf("Verify = %v, want ok %v", err, c.ok)
			}
		})
	}
	// The documented construction, HMAC-SHA256 over "<timestamp>.<body>",
	// as `printf '1700000000.{}' | openssl dgst -sha256 -hmac secret` gives it.
	if got, want := notify.Sign("secret", 1700000000, []byte("{}")), "sha256=b8569b78799ff9e3cbff0fc2d63a33a2b57f3282abd07c37ae5e8e7d79a5f163"; got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

func TestCheckURL(t *testing.T) {
	cases := []struct {
		url string
		dev bool
		ok  bool
	}{
		{"https://hooks.example.org/broadside", false, true},
		{"https://203.0.114.5/hook", false, true},
		{"http://hooks.example.org/broadside", false, false},
		{"http://127.0.0.1:8080/hook", false, false},
		{"http://127.0.0.1:8080/hook", true, true},
		{"http://localhost:8080/hook", true, true},
		{"http://[::1]:8080/hook", true, true},
		{"https://localhost/hook", false, false},
		{"https://10.0.0.5/hook", false, false},
		{"https://10.0.0.5/hook", true, false},
		{"https://169.254.169.254/latest/meta-data", false, false},
		{"https://192.168.1.1/", true, false},
		{"https://user:pass@hooks.example.org/", false, false},
		{"https://intranet/hook", false, false},
		{"ftp://hooks.example.org/", false, false},
		{"hooks.example.org/hook", false, false},
	}
	for _, c := range cases {
		if err := notify.CheckURL(c.url, c.dev); (err == nil) != c.ok {
			t.Errorf("CheckURL(%q, dev %v) = %v, want ok %v", c.url, c.dev, err, c.ok)
		}
	}
}
