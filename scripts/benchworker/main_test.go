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
