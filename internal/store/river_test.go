package store

import (
	"runtime/debug"
	"testing"
)

// TestRiverVersionPinned: the queries of River's own tables (river.go)
// were checked against one River release. Upgrading River fails this
// test until someone has rechecked them against the new release's
// migrations and changed riverVersion.
func TestRiverVersionPinned(t *testing.T) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no module build information in the test binary: cannot tell which River it links")
	}
	const module = "github.com/riverqueue/river"
	for _, dep := range info.Deps {
		if dep.Path != module {
			continue
		}
		got := dep.Version
		if dep.Replace != nil {
			got = dep.Replace.Version
		}
		if got != riverVersion {
			t.Fatalf("River is %s, but the queries of its tables in internal/store/river.go were written against %s: "+
				"check each of them against River %s's migrations (columns, job states, attempted_by), then set riverVersion to %q",
				got, riverVersion, got, got)
		}
		return
	}
	t.Fatalf("%s is not among the test binary's modules: cannot tell which River the queries of river.go run against", module)
}
