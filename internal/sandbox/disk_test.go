//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestDiskWatch checks the disk bound on a command's own folders: what it
// writes there counts, what was there before or what others write next to
// them does not, and a writer cannot hide what it wrote.
func TestDiskWatch(t *testing.T) {
	b := &Bwrap{cfg: BwrapConfig{DiskBytes: 1 << 20, DiskFiles: 50}}
	cases := []struct {
		name  string
		write func(own, other string)
		want  string
	}{
		{"files there before the command do not count", func(own, other string) {}, ""},
		{"a neighbour writing 8 MiB on the same file system does not count", func(own, other string) {
			writeFile(t, filepath.Join(other, "big.bin"), strings.Repeat("x", 8<<20))
		}, ""},
		{"half a MiB is within the bound", func(own, other string) {
			writeFile(t, filepath.Join(own, "half.bin"), strings.Repeat("x", 512<<10))
		}, ""},
		{"60 empty files are over a bound of 50", func(own, other string) {
			for i := 0; i < 60; i++ {
				writeFile(t, filepath.Join(own, fmt.Sprintf("empty%d", i)), "")
			}
		}, "created more than 50 files"},
		{"the command writing 2 MiB to its folder is over the bound", func(own, other string) {
			writeFile(t, filepath.Join(own, "a.bin"), strings.Repeat("x", 1<<20))
			writeFile(t, filepath.Join(own, "sub", "b.bin"), strings.Repeat("x", 1<<20))
		}, "wrote more than 1048576 bytes"},
		{"setting the modification time back hides nothing", func(own, other string) {
			p := filepath.Join(own, "hidden.bin")
			writeFile(t, p, strings.Repeat("x", 2<<20))
			old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}, "wrote more than 1048576 bytes"},
		{"rewriting a file that was there before counts", func(own, other string) {
			writeFile(t, filepath.Join(own, "before.bin"), strings.Repeat("y", 2<<20))
		}, "wrote more than 1048576 bytes"},
		{"changing the mode of a file that was there before counts it whole", func(own, other string) {
			if err := os.Chmod(filepath.Join(own, "before.bin"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "wrote more than 1048576 bytes"},
		{"a folder made during the command counts", func(own, other string) {
			if err := os.MkdirAll(filepath.Join(own, "new", "deeper"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(own, "new", "deeper", "c.bin"), strings.Repeat("x", 2<<20))
		}, "wrote more than 1048576 bytes"},
	}
	for _, tc := range cases {
		for _, watched := range []bool{false, true} {
			name := tc.name
			if watched {
				name += " (watched)"
			}
			t.Run(name, func(t *testing.T) { diskWatchCase(t, b, tc.write, tc.want, watched) })
		}
	}
}

// diskWatchCase runs one case of TestDiskWatch: write is the command;
// with watched, the folders are watched by a treeWatch from before it.
func diskWatchCase(t *testing.T, b *Bwrap, write func(own, other string), want string, watched bool) {
	t.Helper()
	root := t.TempDir()
	own, other := filepath.Join(root, "own"), filepath.Join(root, "other")
	for _, d := range []string{own, filepath.Join(own, "sub"), other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	before := filepath.Join(own, "before.bin")
	writeFile(t, before, strings.Repeat("x", 4<<20))
	mounts := []Mount{{Source: own, Writable: true}, {Source: filepath.Join(own, "sub"), Writable: true}, {Source: "/usr"}}
	var groups []*treeGroup
	if watched {
		tree := newTreeWatch()
		if tree == nil {
			t.Skip("no inotify")
		}
		defer tree.close()
		groups = append(groups, tree.watch(writableDirs(mounts)))
	}
	w := b.diskWatch(mounts, changedFrom(clockAfter(t, before)), -1, groups...)
	// A first look before the command writes anything: a watched folder
	// is then walked again only for what its watch sees.
	if got := w(); got != "" {
		t.Fatalf("before the command wrote anything the watchdog says %q", got)
	}
	time.Sleep(diskPoll)
	write(own, other)
	got := w()
	if (want == "") != (got == "") || !strings.Contains(got, want) {
		t.Errorf("watchdog says %q, want %q", got, want)
	}
}

// clockAfter waits until the file clock has moved past path's change
// time, as when a command starts after the engine wrote its files, and
// returns it. The clock ticks every few milliseconds.
func clockAfter(t *testing.T, path string) unix.Timespec {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		now := fileClock()
		if now.Sec > st.Ctim.Sec || (now.Sec == st.Ctim.Sec && now.Nsec > st.Ctim.Nsec) {
			return now
		}
		if time.Now().After(deadline) {
			t.Fatalf("the file clock stays at %v, not past %s's change time %v", now, path, st.Ctim)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestOutermost(t *testing.T) {
	got := outermost([]string{"/a/b", "/a", "/c", "/a", "/ab"})
	if strings.Join(got, " ") != "/a /c /ab" {
		t.Errorf("outermost = %q", got)
	}
}
