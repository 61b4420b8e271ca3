package sandbox

import (
	"testing"
	"time"
)

func TestParsePressure(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line string
		want time.Duration
		ok   bool
	}{
		{"machine", "some avg10=25.68 avg60=70.72 avg300=89.60 total=8992249223\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
			"some", 8992249223 * time.Microsecond, true},
		{"cgroup full", "some avg10=0.00 avg60=0.00 avg300=0.00 total=1234\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=1000\n",
			"full", 1000 * time.Microsecond, true},
		{"no some line", "full total=3\n", "some", 0, false},
		{"no full line", "some total=3\n", "full", 0, false},
		{"bad number", "some total=x\n", "some", 0, false},
		{"empty", "", "some", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParsePressure([]byte(tt.in), tt.line)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("ParsePressure = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
