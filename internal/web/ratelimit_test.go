package web

import (
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	cases := []struct {
		name     string
		failures []time.Duration // offsets of failed attempts from t0
		reset    bool            // a success after the failures
		at       time.Duration   // when the next attempt comes
		blocked  bool
	}{
		{"under the limit", []time.Duration{0, 1, 2}, false, 3 * time.Second, false},
		{"at the limit within the window", []time.Duration{0, 1, 2, 3}, false, time.Minute, true},
		{"the window passed", []time.Duration{0, 1, 2, 3}, false, 10 * time.Minute, false},
		{"a success forgets the failures", []time.Duration{0, 1, 2, 3}, true, time.Minute, false},
		{"failures in an old window do not count", []time.Duration{0, 1, 2, 11 * time.Minute}, false, 11 * time.Minute, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLimiter(4, 10*time.Minute)
			for _, f := range c.failures {
				l.fail("10.0.0.1", t0.Add(f))
			}
			if c.reset {
				l.reset("10.0.0.1")
			}
			blocked, until := l.blocked("10.0.0.1", t0.Add(c.at))
			if blocked != c.blocked {
				t.Fatalf("blocked = %v, want %v", blocked, c.blocked)
			}
			if blocked && !until.Equal(t0.Add(10*time.Minute)) {
				t.Fatalf("blocked until %v, want the end of the window", until)
			}
			if other, _ := l.blocked("10.0.0.2", t0.Add(c.at)); other {
				t.Fatal("another address is blocked too")
			}
		})
	}
}
