//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTreeWatch checks that every change that can add to what a folder
// holds moves the watch's generation, in folders made or moved in after
// the watch started too, and that nothing else does.
func TestTreeWatch(t *testing.T) {
	own, outside := ownAndOutside(t)
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

// TestChangeSet checks what a watch records from a point on: what changed
// after it, in folders made since too, counts; what changed only before
// it does not; and where no watch could have seen a change, or the watch
// lost events, everything counts.
func TestChangeSet(t *testing.T) {
	own, outside := ownAndOutside(t)
	for _, f := range []string{"before.bin", "rewritten.bin", "sub/chmod.bin", "sub/untouched.bin"} {
		writeFile(t, filepath.Join(own, f), "x")
	}
	tree := newTreeWatch()
	if tree == nil {
		t.Skip("no inotify")
	}
	defer tree.close()
	group := tree.watch([]string{own})
	// Changed before the record starts: read by record, not recorded.
	writeFile(t, filepath.Join(own, "before.bin"), "changed before")
	seen := tree.record()
	if seen == nil {
		t.Fatal("a fresh watch cannot record")
	}
	writeFile(t, filepath.Join(own, "written.bin"), "new")
	writeFile(t, filepath.Join(own, "rewritten.bin"), "again")
	if err := os.Chmod(filepath.Join(own, "sub", "chmod.bin"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Written before the watch has read that its folders were made: no
	// event names the file.
	if err := os.MkdirAll(filepath.Join(own, "made", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(own, "made", "deep", "f.bin"), "x")
	writeFile(t, filepath.Join(outside, "x.bin"), "x")
	group.generation() // reads the events
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"own/before.bin", false},
		{"own/sub/untouched.bin", false},
		{"own/sub/chmod.bin", true},
		{"own/written.bin", true},
		{"own/rewritten.bin", true},
		{"own", true}, // an entry was made in it
		{"own/made", true},
		{"own/made/deep", true},
		{"own/made/deep/f.bin", true},
		{"outside/x.bin", true}, // no watch would have seen it
	} {
		if got := seen.saw(filepath.Join(filepath.Dir(own), tc.path)); got != tc.want {
			t.Errorf("saw(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
	// A new record starts empty.
	next := tree.record()
	if next.saw(filepath.Join(own, "written.bin")) {
		t.Error("a new record holds the last one's changes")
	}
	// A record stopped takes no more changes.
	tree.stopRecording()
	writeFile(t, filepath.Join(own, "after-stop.bin"), "x")
	group.generation()
	if next.saw(filepath.Join(own, "after-stop.bin")) {
		t.Error("a stopped record took a change")
	}
	// Too many changes, or a watch that lost events: everything counts.
	tree.mu.Lock()
	for i := range maxChanges + 1 {
		next.add(own, fmt.Sprintf("f%d", i), 0, false)
	}
	tree.mu.Unlock()
	if !next.saw(filepath.Join(own, "sub", "untouched.bin")) {
		t.Error("a record past maxChanges still tells an entry unchanged")
	}
	last := tree.record()
	tree.mu.Lock()
	tree.lose()
	tree.mu.Unlock()
	if !last.saw(filepath.Join(own, "sub", "untouched.bin")) {
		t.Error("a watch that lost events still tells an entry unchanged")
	}
	if tree.record() != nil {
		t.Error("a watch that lost events records")
	}
}

// ownAndOutside makes a watched folder with a subfolder, own/sub, and a
// folder beside it that no watch covers.
func ownAndOutside(t *testing.T) (own, outside string) {
	t.Helper()
	root := t.TempDir()
	own, outside = filepath.Join(root, "own"), filepath.Join(root, "outside")
	for _, d := range []string{own, filepath.Join(own, "sub"), outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return own, outside
}

// TestTreeWatchWaitChange: a wait ends at once on a change not yet read,
// sleeps while nothing changes, ends at the next change, and ends with an
// error when cancelled; a second waiter waits for the first.
func TestTreeWatchWaitChange(t *testing.T) {
	own, _ := ownAndOutside(t)
	tree := newTreeWatch()
	if tree == nil {
		t.Skip("no inotify")
	}
	defer tree.close()
	group := tree.watch([]string{own})
	group.generation() // nothing queued

	wait := func(cancel chan struct{}) chan error {
		done := make(chan error, 1)
		go func() { done <- tree.waitChange(cancel) }()
		return done
	}
	// A change made before the wait, not yet read.
	writeFile(t, filepath.Join(own, "before.txt"), "x")
	if err := <-wait(nil); err != nil {
		t.Fatalf("wait with a change queued: %v", err)
	}
	group.generation()

	// Nothing changes: the wait goes on until something does.
	done := wait(nil)
	select {
	case err := <-done:
		t.Fatalf("the wait ended with nothing changed: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	writeFile(t, filepath.Join(own, "sub", "later.txt"), "x")
	endedByChange(t, done, "a change")
	group.generation()

	// Cancelled, with a second waiter queued behind: both end.
	cancel := make(chan struct{})
	first, second := wait(cancel), wait(cancel)
	time.Sleep(50 * time.Millisecond)
	close(cancel)
	for i, done := range []chan error{first, second} {
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("waiter %d: a cancelled wait ended without an error", i+1)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("waiter %d: cancelling did not end the wait", i+1)
		}
	}
	// The watch is waited on again after a cancel.
	done = wait(nil)
	writeFile(t, filepath.Join(own, "again.txt"), "x")
	endedByChange(t, done, "a change after a cancel")
}

// endedByChange fails t unless the wait done ends without an error, as a
// change (what) ends it.
func endedByChange(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("wait for %s: %v", what, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not end the wait", what)
	}
}
