package fleet

import (
	"testing"
	"time"
)

// TestContact: a worker has reached the database since its first
// heartbeat after a failed one, or after a gap of more than two beats.
func TestContact(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	c := newContact(time.Second, at(0))
	steps := []struct {
		at        int
		lost      bool
		wantSince int
		wantOK    bool
	}{
		{at: 1, wantSince: 0, wantOK: true},
		{at: 2, wantSince: 0, wantOK: true},
		{at: 3, lost: true},
		{at: 4, wantSince: 4, wantOK: false}, // back after a failed beat
		{at: 5, wantSince: 4, wantOK: true},
		{at: 9, wantSince: 9, wantOK: false}, // a gap of four beats
		{at: 11, wantSince: 9, wantOK: true}, // two beats apart is no gap
	}
	for _, s := range steps {
		if s.lost {
			c.lost()
			continue
		}
		since, ok := c.reached(at(s.at))
		if !since.Equal(at(s.wantSince)) || ok != s.wantOK {
			t.Errorf("beat at %ds: reached since %s (%v), want %ds (%v)", s.at, since.Sub(t0), ok, s.wantSince, s.wantOK)
		}
	}
}
