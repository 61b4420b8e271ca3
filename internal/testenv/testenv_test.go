package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRequire runs a test that lacks something in a child process, with
// and without the CI setting, and checks that it skipped or failed.
func TestRequire(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		Require(t, "a unicorn", false, "none were ever installed")
		t.Fatal("Require let a test without its unicorn go on")
	}
	tests := []struct {
		name, requireAll string
		wantFail         bool
		want             string
	}{
		{"laptop", "", false, "--- SKIP: TestRequire"},
		{"off", "0", false, "--- SKIP: TestRequire"},
		{"ci", "1", true, "--- FAIL: TestRequire"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestRequire$", "-test.v")
			cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", EnvRequireAll+"="+tc.requireAll)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != tc.wantFail {
				t.Errorf("failed=%v, want %v\n%s", failed, tc.wantFail, out)
			}
			for _, want := range []string{tc.want, "a unicorn", "none were ever installed"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestGoBinary builds a command twice and gets one binary that runs.
func TestGoBinary(t *testing.T) {
	RequireProgram(t, "go")
	defer RemoveGoBinaries()
	const pkg = "github.com/broadside/broadside/scripts/testsummary"
	first := GoBinary(t, pkg)
	fi, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	if second := GoBinary(t, pkg); second != first {
		t.Errorf("second call built again: %s, then %s", first, second)
	}
	if fi2, err := os.Stat(first); err != nil || !os.SameFile(fi, fi2) || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Errorf("the binary changed between calls: %v", err)
	}
	RemoveGoBinaries()
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("RemoveGoBinaries left %s: %v", first, err)
	}
}
