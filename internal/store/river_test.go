package store

import (
	"encoding/json"
	"os/exec"
	"testing"
)

// TestRiverVersionPinned: the queries of River's own tables (river.go)
// were checked against one River release. Upgrading River fails this
// test until someone has rechecked them against the new release's
// migrations and changed riverVersion. The version is the build's, as go
// list resolves it from go.mod (replacements included): a test binary
// carries no module list of its own.
func TestRiverVersionPinned(t *testing.T) {
	const module = "github.com/riverqueue/river"
	out, err := exec.Command("go", "list", "-m", "-json", module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v: cannot tell which River the queries of river.go run against", module, err)
	}
	var m struct {
		Version string
		Replace *struct{ Version string }
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("go list -m %s: %v", module, err)
	}
	got := m.Version
	if m.Replace != nil && m.Replace.Version != "" {
		got = m.Replace.Version
	}
	if got != riverVersion {
		t.Fatalf("River is %s, but the queries of its tables in internal/store/river.go were written against %s: "+
			"check each of them against River %s's migrations (columns, job states, attempted_by), then set riverVersion to %q",
			got, riverVersion, got, got)
	}
}
