//go:build unix

package entelect

import (
	"os"
	"path/filepath"
	"strings"
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

// TestReadBotFile: a bot's file is read whole up to the cap, whatever its
// size against the buffer's first guess, and anything but a regular file
// of its own is refused without being followed or blocking.
func TestReadBotFile(t *testing.T) {
	big := strings.Repeat("x", 3000)
	tests := []struct {
		name   string
		before func(t *testing.T, path, outside string)
		limit  int
		want   string
		// err is the error wanted, when one is: a substring of it.
		err string
	}{
		{"small file", func(t *testing.T, p, _ string) { write(t, p, "1,0,2\n") }, 64, "1,0,2\n", ""},
		{"empty file", func(t *testing.T, p, _ string) { write(t, p, "") }, 64, "", ""},
		{"at the cap", func(t *testing.T, p, _ string) { write(t, p, big) }, 3000, big, ""},
		{"over the cap", func(t *testing.T, p, _ string) { write(t, p, big) }, 2999, "", "too large"},
		{"cap of zero", func(t *testing.T, p, _ string) { write(t, p, "x") }, 0, "", "too large"},
		{"missing", func(*testing.T, string, string) {}, 64, "", "no such file"},
		{"symbolic link", func(t *testing.T, p, outside string) { must(t, os.Symlink(outside, p)) }, 64, "", "too many levels"},
		{"fifo", func(t *testing.T, p, _ string) { must(t, syscall.Mkfifo(p, 0o644)) }, 64, "", "not a regular file"},
		{"folder", func(t *testing.T, p, _ string) { must(t, os.Mkdir(p, 0o755)) }, 64, "", "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outside := filepath.Join(t.TempDir(), "host-file")
			write(t, outside, "host")
			p := filepath.Join(t.TempDir(), "command.txt")
			tt.before(t, p, outside)
			got, err := readBotFile(p, tt.limit)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("read %q, %v; want an error with %q", got, err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("read %d bytes (%v), want %d", len(got), err, len(tt.want))
			}
		})
	}
}

// TestReadBotFileBeyondItsSize: a file that holds more than its size said
// when it was opened (it grew since) is still read whole, up to the cap.
// A file of /proc is such a file: its size is 0 and it holds a line.
func TestReadBotFileBeyondItsSize(t *testing.T) {
	const p = "/proc/self/cmdline"
	want, err := os.ReadFile(p)
	if err != nil || len(want) < 2 {
		t.Skipf("no %s here to read: %v", p, err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != 0 {
		t.Skipf("%s is sized here: %v", p, err)
	}
	got, err := readBotFile(p, len(want))
	if err != nil || string(got) != string(want) {
		t.Fatalf("read %q (%v), want %q", got, err, want)
	}
	if _, err := readBotFile(p, len(want)-1); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("over its cap by a byte: %v, want too large", err)
	}
}
