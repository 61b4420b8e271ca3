package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
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
		{"no newline at the end", "some total=1\nfull avg10=0.00 total=7", "full", 7 * time.Microsecond, true},
		{"another line's name", "something total=9\nsome total=2\n", "some", 2 * time.Microsecond, true},
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

// TestPressureFile reads one open file again and again: each reading sees
// what the file holds now, as /proc/pressure/cpu does while the machine
// runs.
func TestPressureFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pressure")
	write := func(some, full int) {
		t.Helper()
		body := fmt.Sprintf("some avg10=1.00 avg60=2.00 avg300=3.00 total=%d\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=%d\n", some, full)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(1000, 10)
	p, err := OpenPressure(path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, want := range []struct{ some, full int }{{1000, 10}, {18446744073709551, 2500}, {7, 0}} {
		write(want.some, want.full)
		if got, ok := p.Total("some"); !ok || got != time.Duration(want.some)*time.Microsecond {
			t.Errorf("some: %v, %v; want %dµs", got, ok, want.some)
		}
		if got, ok := p.Total("full"); !ok || got != time.Duration(want.full)*time.Microsecond {
			t.Errorf("full: %v, %v; want %dµs", got, ok, want.full)
		}
	}
	var none *PressureFile
	if _, ok := none.Total("some"); ok {
		t.Error("a nil PressureFile read a total")
	}
	if _, err := OpenPressure(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("OpenPressure of a missing file: no error")
	}
	// The machine's file, where the kernel has PSI (every CI machine).
	if m, err := OpenPressure("/proc/pressure/cpu"); err == nil {
		defer m.Close()
		a, okA := m.Total("some")
		b, okB := m.Total("some")
		if !okA || !okB || b < a {
			t.Errorf("/proc/pressure/cpu read %v (%v) then %v (%v)", a, okA, b, okB)
		}
	}
}
