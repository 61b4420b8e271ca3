//go:build linux

package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// treeWatch learns from inotify when anything under a set of folders
// changes, so that a running command's folders are walked (a stat per
// file) only after something changed in them, not at every tick. Every
// change that can add to what a folder holds reaches inotify: a write,
// truncate or fallocate (IN_MODIFY), a new entry or hard link (IN_CREATE),
// a rename into it (IN_MOVED_TO), a change of mode, owner, times, links or
// extended attributes (IN_ATTRIB, which also sets the change time the walk
// counts by). Folders made or moved in while watched are watched in turn,
// before the walk that the event calls for, so nothing written in them
// escapes the next walk.
//
// When the watch cannot tell (a watch that could not be added, a queue
// that overflowed), generation says so and the caller walks at every
// tick, as without a watch.
type treeWatch struct {
	mu    sync.Mutex
	roots []string // the folders given to newTreeWatch
	fd    int
	dirs  map[int32]string // the watched folders by watch descriptor
	gen   uint64
	lost  bool
	buf   [8 << 10]byte
}

// treeWatchMask is what the watched folders report: every change, and
// folders only, without following a symbolic link.
const treeWatchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// maxTreeWatches bounds the folders one watch follows; past it the watch
// gives up (the caller walks at every tick) rather than use up the
// machine's inotify watches.
const maxTreeWatches = 4096

// newTreeWatch watches dirs and every folder under them; nil when inotify
// is not available, which callers take as "walk at every tick".
func newTreeWatch(dirs []string) *treeWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	t := &treeWatch{roots: dirs, fd: fd, dirs: map[int32]string{}}
	for _, d := range dirs {
		t.addTree(d)
	}
	return t
}

// addTree watches dir and the folders under it; t.mu is held or t is not
// shared yet.
func (t *treeWatch) addTree(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if t.lost {
			return filepath.SkipAll
		}
		if err != nil {
			if p == dir {
				// The folder itself is gone or unreadable: the walk
				// would find nothing there either.
				return filepath.SkipAll
			}
			t.lost = true
			return filepath.SkipAll
		}
		if !d.IsDir() {
			return nil
		}
		if len(t.dirs) >= maxTreeWatches {
			t.lost = true
			return filepath.SkipAll
		}
		wd, err := unix.InotifyAddWatch(t.fd, p, treeWatchMask)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				return filepath.SkipDir // removed while walked
			}
			t.lost = true
			return filepath.SkipAll
		}
		t.dirs[int32(wd)] = p
		return nil
	})
}

// generation reads the events queued so far and returns a number that
// changes whenever something changed under the watched folders since the
// last call; ok is false when the watch cannot tell, and the caller is to
// walk. A nil watch cannot tell.
func (t *treeWatch) generation() (gen uint64, ok bool) {
	if t == nil {
		return 0, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lost || t.fd < 0 {
		return t.gen, false
	}
	changed := false
	var made []string
	for {
		n, err := unix.Read(t.fd, t.buf[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			break
		}
		if err != nil || n <= 0 {
			t.lost = true
			return t.gen, false
		}
		for b := t.buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
			wd := int32(binary.NativeEndian.Uint32(b[0:4]))
			mask := binary.NativeEndian.Uint32(b[4:8])
			size := int(binary.NativeEndian.Uint32(b[12:16]))
			name := b[unix.SizeofInotifyEvent:min(len(b), unix.SizeofInotifyEvent+size)]
			b = b[min(len(b), unix.SizeofInotifyEvent+size):]
			if mask&unix.IN_Q_OVERFLOW != 0 {
				t.lost = true
				return t.gen, false
			}
			dir, watched := t.dirs[wd]
			if !watched {
				continue
			}
			if mask&unix.IN_IGNORED != 0 {
				delete(t.dirs, wd)
				continue
			}
			changed = true
			if mask&unix.IN_ISDIR != 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
				if i := bytes.IndexByte(name, 0); i >= 0 {
					name = name[:i]
				}
				made = append(made, filepath.Join(dir, string(name)))
			}
		}
	}
	// The new folders are watched before the caller walks them.
	for _, d := range made {
		t.addTree(d)
	}
	if changed {
		t.gen++
	}
	return t.gen, !t.lost
}

// close ends the watch.
func (t *treeWatch) close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fd >= 0 {
		unix.Close(t.fd)
		t.fd = -1
	}
}
