//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTreeWatch checks that every change that can add to what a folder
// holds moves the watch's generation, in folders made or moved in after
// the watch started too, and that nothing else does.
func TestTreeWatch(t *testing.T) {
	root := t.TempDir()
	own, outside := filepath.Join(root, "own"), filepath.Join(root, "outside")
	for _, d := range []string{own, filepath.Join(own, "sub"), outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(own, "sub", "before.bin"), "x")
	tree := newTreeWatch()
	if tree == nil {
		t.Skip("no inotify")
	}
	defer tree.close()
	group := tree.watch([]string{own})
	// A second group, of folders outside, counts its own changes only.
	other := tree.watch([]string{outside})
	otherGen, _ := other.generation()
	gen, ok := group.generation()
	if !ok {
		t.Fatal("a fresh watch cannot tell")
	}
	expect := func(what string, changed bool) {
		t.Helper()
		g, ok := group.generation()
		if !ok {
			t.Fatalf("after %s: the watch cannot tell", what)
		}
		if (g != gen) != changed {
			t.Errorf("after %s: changed %v, want %v", what, g != gen, changed)
		}
		gen = g
	}
	expect("nothing", false)
	writeFile(t, filepath.Join(outside, "x"), "not watched")
	expect("a write outside", false)
	if g, ok := other.generation(); !ok || g == otherGen {
		t.Errorf("the group outside saw no change (%v)", ok)
	}
	other.remove()
	writeFile(t, filepath.Join(outside, "y"), "no longer watched")
	expect("a write in a removed group's folder", false)
	steps := []struct {
		what string
		do   func() error
	}{
		{"a write in a subfolder", func() error {
			return os.WriteFile(filepath.Join(own, "sub", "before.bin"), []byte("more"), 0o644)
		}},
		{"a chmod", func() error { return os.Chmod(filepath.Join(own, "sub", "before.bin"), 0o600) }},
		{"a truncate", func() error { return os.Truncate(filepath.Join(own, "sub", "before.bin"), 1<<20) }},
		{"a hard link", func() error {
			return os.Link(filepath.Join(own, "sub", "before.bin"), filepath.Join(own, "link"))
		}},
		{"a new folder", func() error { return os.Mkdir(filepath.Join(own, "new"), 0o755) }},
		{"a file in the new folder", func() error {
			return os.WriteFile(filepath.Join(own, "new", "f"), []byte("x"), 0o644)
		}},
		{"a folder moved in", func() error {
			if err := os.MkdirAll(filepath.Join(outside, "tree", "deep"), 0o755); err != nil {
				return err
			}
			return os.Rename(filepath.Join(outside, "tree"), filepath.Join(own, "moved"))
		}},
		{"a file deep in the folder moved in", func() error {
			return os.WriteFile(filepath.Join(own, "moved", "deep", "f"), []byte("x"), 0o644)
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		expect(s.what, true)
		expect(s.what+", read again", false)
	}
	tree.close()
	if _, ok := group.generation(); ok {
		t.Error("a closed watch still tells")
	}
}
