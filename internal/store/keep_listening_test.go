package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestKeepListening: a listen that fails is run again after the pause and
// each failure is told, until ctx ends; the end of ctx is not a failure.
func TestKeepListening(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls int
	var failures []error
	lost := errors.New("connection lost")
	listen := func(ctx context.Context) error {
		calls++
		if calls == 3 {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		}
		return lost
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		KeepListening(ctx, time.Millisecond, listen, func(err error) { failures = append(failures, err) })
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("KeepListening did not return when ctx ended")
	}
	if calls != 3 || len(failures) != 2 || !errors.Is(failures[0], lost) || !errors.Is(failures[1], lost) {
		t.Errorf("calls %d, failures %v; want 3 calls and the 2 lost connections", calls, failures)
	}
}
