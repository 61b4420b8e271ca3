package main

import (
	"slices"
	"testing"
	"time"
)

// TestScaleSteps: doubling worker counts up to the cores, the cores last.
func TestScaleSteps(t *testing.T) {
	tests := []struct {
		cores int
		want  []int
	}{
		{1, []int{1}},
		{2, []int{1, 2}},
		{6, []int{1, 2, 4, 6}},
		{16, []int{1, 2, 4, 8, 16}},
	}
	for _, tc := range tests {
		if got := scaleSteps(tc.cores); !slices.Equal(got, tc.want) {
			t.Errorf("%d cores: %v, want %v", tc.cores, got, tc.want)
		}
	}
}

// TestShare: the worker's CPU as a share of the bots', and none without
// bots' CPU to compare with.
func TestShare(t *testing.T) {
	tests := []struct {
		worker, bots time.Duration
		want         string
	}{
		{4600 * time.Microsecond, 54 * time.Millisecond, "8.5 %"},
		{2 * time.Millisecond, 40 * time.Millisecond, "5.0 %"},
		{time.Millisecond, 0, "—"},
	}
	for _, tc := range tests {
		if got := share(tc.worker, tc.bots); got != tc.want {
			t.Errorf("share(%v, %v) = %q, want %q", tc.worker, tc.bots, got, tc.want)
		}
	}
}

// TestSpendOf: two matches on one slot over 10 s: each match's setup,
// play and finish are summed, and the slot's time without a match is idle;
// a match whose replay shows no turn counts as busy but in no part.
func TestSpendOf(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	// Each match is taken as it is queued.
	jobs := []queuedMatch{{at(0), at(0), at(4000)}, {at(5000), at(5000), at(9000)}, {at(9000), at(9000), at(9500)}}
	spans := []matchSpan{
		{firstTurn: at(100), lastRound: at(3900)},
		{firstTurn: at(5200), lastRound: at(8800)},
		{},
	}
	got := spendOf(jobs, spans, 1, 10*time.Second)
	want := matchTime{slots: 1, wall: 10 * time.Second, setup: 300 * time.Millisecond,
		play: 7400 * time.Millisecond, finish: 300 * time.Millisecond, idle: 1500 * time.Millisecond,
		setupP50: 200 * time.Millisecond}
	if got != want {
		t.Errorf("spendOf = %+v, want %+v", got, want)
	}
	if s := got.share(got.idle); s != "15.0 %" {
		t.Errorf("idle share %q, want 15.0 %%", s)
	}
}

// TestIdleWhileQueued: a slot's idle time counts only while a match
// waited in the queue; idle time with nothing queued does not.
func TestIdleWhileQueued(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	tests := []struct {
		name    string
		matches []queuedMatch
		slots   int
		want    time.Duration
	}{
		{"taken at once", []queuedMatch{{at(0), at(0), at(4000)}, {at(0), at(0), at(3000)}}, 2, 0},
		{"one slot slow to take the second", []queuedMatch{{at(0), at(0), at(4000)}, {at(0), at(1000), at(5000)}}, 2, time.Second},
		{"a freed slot while a third waits", []queuedMatch{
			{at(0), at(0), at(4000)}, {at(0), at(1000), at(5000)}, {at(0), at(5000), at(6000)},
		}, 2, 2 * time.Second},
		{"nothing queued, a slot free", []queuedMatch{{at(0), at(0), at(4000)}, {at(7000), at(7000), at(8000)}}, 2, 0},
		{"one slot, queued behind a running match", []queuedMatch{{at(0), at(0), at(4000)}, {at(1000), at(4000), at(5000)}}, 1, 0},
		{"one slot, a gap before the queued match starts", []queuedMatch{{at(0), at(0), at(4000)}, {at(1000), at(4500), at(5000)}}, 1, 500 * time.Millisecond},
	}
	for _, tc := range tests {
		if got := idleWhileQueued(tc.matches, tc.slots); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
