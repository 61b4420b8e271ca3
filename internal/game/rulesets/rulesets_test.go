package rulesets

import (
	"slices"
	"testing"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game"
)

// TestRegistry checks that every game a manifest may name is hosted, under
// that name, with a sensible number of seats.
func TestRegistry(t *testing.T) {
	r := Registry()
	for _, name := range r.Names() {
		rs, err := r.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if rs.Name() != name {
			t.Errorf("rule set %q calls itself %q", name, rs.Name())
		}
		if lo, hi := rs.Seats(); lo < 1 || hi < lo {
			t.Errorf("%s seats %d..%d", name, lo, hi)
		}
		tr := rs.Traits()
		if tr.Title == "" {
			t.Errorf("%s has no title", name)
		}
		if tr.LadderMapSize != 0 && !slices.ContainsFunc(tr.MapSizes, func(m game.MapSize) bool { return m.Size == tr.LadderMapSize }) {
			t.Errorf("%s plays its ladder on map size %d, not one of %v", name, tr.LadderMapSize, tr.MapSizes)
		}
		if _, hi := rs.Seats(); tr.Key(0) == tr.Key(hi-1) {
			t.Errorf("%s gives its first and last seats the same key %q", name, tr.Key(0))
		}
	}
	// The games manifests imply without naming one.
	for _, g := range []string{botmeta.DefaultGame, botmeta.EntryZONGame, botmeta.RunShGame} {
		if _, err := r.Get(g); err != nil {
			t.Errorf("game %q is not hosted: %v", g, err)
		}
	}
	if _, err := r.Get("chess"); err == nil {
		t.Error("Get of an unknown game succeeded")
	}
}
