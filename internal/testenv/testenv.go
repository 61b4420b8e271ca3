// Package testenv decides what a test does when the machine lacks
// something it needs: bubblewrap, a bot toolchain, Chromium, versitygw,
// Docker or PostgreSQL.
//
// On a contributor's machine such a test skips and says why, so that
// `go test ./...` stays useful without every toolchain installed. CI sets
// BROADSIDE_TEST_REQUIRE_ALL=1 (`.ci/run` does): there a missing
// requirement fails the test instead, because a test that skips in CI
// proves nothing and hides the machine's fault.
package testenv

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// EnvRequireAll names the variable that turns missing requirements into
// failures.
const EnvRequireAll = "BROADSIDE_TEST_REQUIRE_ALL"

// RequireAll reports whether the environment asks for every requirement to
// be met.
func RequireAll() bool {
	v := os.Getenv(EnvRequireAll)
	return v != "" && v != "0" && v != "false"
}

// Require stops the test when ok is false: what names the missing thing
// ("bubblewrap", "python3") and why says what went wrong or how to get it.
// It skips, or fails where RequireAll is set.
func Require(t testing.TB, what string, ok bool, why string) {
	t.Helper()
	if ok {
		return
	}
	if RequireAll() {
		t.Fatalf("testenv: %s required (%s=1): %s", what, EnvRequireAll, why)
	}
	t.Skipf("testenv: skipped without %s: %s", what, why)
}

// RequireErr is Require for a lookup that returns an error: the test goes
// on when err is nil.
func RequireErr(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		Require(t, what, false, err.Error())
	}
}

// RequireProgram requires each program to be on PATH (or, given as a
// path, to exist).
func RequireProgram(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			Require(t, p, false, p+" is not installed (scripts/setup.sh --test installs it)")
		}
	}
}

// EnvTimeScale names the variable that stretches the time limits tests
// give the commands they run, on a machine much slower than the ones the
// limits were chosen on: an emulated guest (make test-cgroup2) runs bots
// several times slower, and a bot that did not finish its work within its
// CPU second would read as a sandbox that broke it.
const EnvTimeScale = "BROADSIDE_TEST_TIME_SCALE"

// Scaled returns d times the factor in EnvTimeScale (1 when unset or not a
// number of at least 1).
func Scaled(d time.Duration) time.Duration {
	f, err := strconv.ParseFloat(os.Getenv(EnvTimeScale), 64)
	if err != nil || f < 1 {
		return d
	}
	return time.Duration(float64(d) * f)
}
