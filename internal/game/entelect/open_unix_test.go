//go:build unix

package entelect

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRewriteFile: the engine's file is written over where it is a
// regular file of its own, and replaced, never followed or shared, where
// the bot left anything else in its place.
func TestRewriteFile(t *testing.T) {
	tests := []struct {
		name string
		// before leaves something at path; outside is a file beside the
		// folder that must stay as it was.
		before func(t *testing.T, path, outside string)
		// inPlace says the file is written over, keeping its inode.
		inPlace bool
	}{
		{"missing", func(*testing.T, string, string) {}, false},
		{"longer file", func(t *testing.T, p, _ string) { write(t, p, "a much longer file than the new one") }, true},
		{"shorter file", func(t *testing.T, p, _ string) { write(t, p, "x") }, true},
		{"symbolic link", func(t *testing.T, p, outside string) { must(t, os.Symlink(outside, p)) }, false},
		{"hard link", func(t *testing.T, p, _ string) {
			write(t, p, "old")
			must(t, os.Link(p, p+".kept"))
		}, false},
		{"fifo", func(t *testing.T, p, _ string) { must(t, syscall.Mkfifo(p, 0o644)) }, false},
		{"empty folder", func(t *testing.T, p, _ string) { must(t, os.Mkdir(p, 0o755)) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			outside := filepath.Join(t.TempDir(), "host-file")
			write(t, outside, "host")
			p := filepath.Join(dir, "state.json")
			tt.before(t, p, outside)
			before, _ := os.Lstat(p)
			if err := rewriteFile(p, []byte("new state")); err != nil {
				t.Fatal(err)
			}
			if data, err := os.ReadFile(p); err != nil || string(data) != "new state" {
				t.Errorf("file holds %q (%v), want the new state", data, err)
			}
			after, err := os.Lstat(p)
			if err != nil || !after.Mode().IsRegular() {
				t.Fatalf("not a regular file after: %v %v", after, err)
			}
			// A file replaced may get the freed inode's number again: only
			// a file written over is sure to keep it.
			if tt.inPlace && !os.SameFile(before, after) {
				t.Error("the file was replaced, not written over")
			}
			if data, _ := os.ReadFile(outside); string(data) != "host" {
				t.Errorf("the file outside holds %q", data)
			}
			if data, err := os.ReadFile(p + ".kept"); err == nil && string(data) != "old" {
				t.Errorf("the other link holds %q, want it untouched", data)
			}
		})
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	must(t, os.WriteFile(path, []byte(s), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
