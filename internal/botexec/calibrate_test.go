package botexec

import (
	"context"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// TestCalibrate measures the start-up cost of each installed language
// (policy §14.5) and checks it is cached per calibrator.
func TestCalibrate(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration starts real runtimes")
	}
	c, err := NewCalibrator(sandbox.NewHost(sandbox.HostConfig{}), NewRuntimes(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		language string
		program  string
		max      time.Duration
	}{
		{"Golang", "", 200 * time.Millisecond},
		{"Python3", "python3", 2 * time.Second},
		{"JavaScript", "node", 2 * time.Second},
		{"Java", "javac", 10 * time.Second},
		{"CSharp", "mcs", 10 * time.Second},
	}
	native := time.Duration(0)
	for _, tt := range tests {
		t.Run(tt.language, func(t *testing.T) {
			if tt.program != "" {
				need(t, tt.program)
			}
			d, err := c.Calibrate(ctx, tt.language)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s start-up: %v", tt.language, d)
			if d < 0 || d > tt.max {
				t.Errorf("calibration %v outside [0, %v]", d, tt.max)
			}
			if tt.language == "Golang" {
				native = d
			} else if d <= native {
				t.Errorf("%s start-up %v is not above a native program's %v", tt.language, d, native)
			}
			again, err := c.Calibrate(ctx, tt.language)
			if err != nil || again != d {
				t.Errorf("second Calibrate = %v, %v; want the cached %v", again, err, d)
			}
		})
	}
	if _, err := c.Calibrate(ctx, "Cobol"); err == nil {
		t.Error("Calibrate of an unknown language succeeded")
	}
}

func TestCalibrateMissingRuntime(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	c, err := NewCalibrator(sandbox.NewHost(sandbox.HostConfig{}), NewRuntimes(), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Calibrate(context.Background(), "JavaScript"); err == nil {
		t.Error("Calibrate succeeded without node")
	}
}

// BenchmarkCalibratePython3 is the start-up cost the engine adds for a
// Python 3 bot, measured fresh each iteration.
func BenchmarkCalibratePython3(b *testing.B) {
	rt := NewRuntimes()
	_, err := rt.Find("python3", "python3")
	testenv.RequireErr(b, "python3", err)
	for b.Loop() {
		c, err := NewCalibrator(sandbox.NewHost(sandbox.HostConfig{}), rt, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Calibrate(context.Background(), "Python3"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCalibrateInSandbox calibrates through bubblewrap, as the platform
// does: the trivial bot's folder must be visible inside.
func TestCalibrateInSandbox(t *testing.T) {
	ctx := context.Background()
	testenv.RequireErr(t, "an enforced sandbox", sandbox.Require(sandbox.Probe(ctx)))
	need(t, "python3")
	need(t, "mcs")
	bw, err := sandbox.NewMatchSandbox(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCalibrator(bw, NewRuntimes(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Mono needs /etc/mono in the sandbox: without it the trivial program
	// fails with DllNotFoundException (System.Native).
	for _, lang := range []string{"Python3", "Executable", "CSharp"} {
		d, err := c.Calibrate(ctx, lang)
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		t.Logf("%s start-up in the sandbox: %v", lang, d)
	}
}
