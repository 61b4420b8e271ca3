package main

import (
	"slices"
	"testing"
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
