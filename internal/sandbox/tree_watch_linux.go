//go:build linux

package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

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
// One inotify instance serves a session: a group of folders is watched
// for the session's life (the bot's) and one for the command's own (its
// round folder, kept for the next command when it is the same folder),
// each with its own generation. Closing an inotify instance waits
// for the kernel to retire its watches (a grace period, milliseconds on a
// busy machine); removing a watch does not.
//
// When the watch cannot tell (a watch that could not be added, a queue
// that overflowed), generation says so and the caller walks at every
// tick, as without a watch.
type treeWatch struct {
	mu     sync.Mutex
	fd     int
	dirs   map[int32]watchedDir // the watched folders by watch descriptor
	byPath map[string]int32     // and by path
	lost   bool
	// rec, when set, is where the events read are recorded (see record).
	rec *changeSet
	buf [8 << 10]byte
	// poll is the instance as the runtime's poller holds it (a duplicate
	// descriptor), for a command's watch to sleep until something changes
	// (waitChange); nil where it could not be registered. waiter admits
	// one waiter at a time: the poller takes one per descriptor, and a
	// command's watch may still be ending when the next one starts.
	poll   *os.File
	waiter chan struct{}
}

// watchedDir is one watched folder and the group it belongs to.
type watchedDir struct {
	path  string
	group *treeGroup
}

// treeGroup is folders watched together and a count of their changes.
type treeGroup struct {
	t     *treeWatch
	roots []string
	// rootIDs are the roots' files as watched: a root removed and made
	// again is another file at the same path.
	rootIDs []fileID
	gen     uint64
	wds     []int32
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

// newTreeWatch starts an inotify instance; nil when inotify is not
// available, whose groups are nil too: callers then walk at every tick.
func newTreeWatch() *treeWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	t := &treeWatch{fd: fd, dirs: map[int32]watchedDir{}, byPath: map[string]int32{}, waiter: make(chan struct{}, 1)}
	if dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0); err == nil {
		// The duplicate shares the instance and its non-blocking mode, so
		// the poller takes it: a wait for it costs no thread.
		t.poll = os.NewFile(uintptr(dup), "inotify")
	}
	return t
}

// errNoWait is waitChange's answer where the watch cannot be waited on.
var errNoWait = errors.New("sandbox: the folder watch cannot be waited on")

// waitChange returns once the watch has events that arrived after the
// last time it returned (or were not read yet), or once cancel is
// closed, with an error then. Events arrive as the kernel queues them, so
// a change made after the last drain always ends a wait begun after it.
// Waits are one at a time: a second waits for the first to return.
func (t *treeWatch) waitChange(cancel <-chan struct{}) error {
	if t == nil || t.poll == nil {
		return errNoWait
	}
	select {
	case t.waiter <- struct{}{}:
	case <-cancel:
		return errNoWait
	}
	defer func() { <-t.waiter }()
	raw, err := t.poll.SyscallConn()
	if err != nil {
		return err
	}
	if err := t.poll.SetReadDeadline(time.Time{}); err != nil {
		return err
	}
	// cancel ends the wait by moving the deadline to now; the wait's own
	// goroutine (this one) returns before the next wait can begin.
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-cancel:
			t.poll.SetReadDeadline(time.Now())
		case <-stopped:
		}
	}()
	asked := false
	var queuedErr error
	err = raw.Read(func(fd uintptr) bool {
		// The poller forgets, as the wait begins, that the descriptor was
		// readable: events queued before it are asked for first, and only
		// where there are none does the poller wait for the next. Nothing
		// is read here: drain reads the events.
		if asked {
			return true
		}
		asked = true
		n, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ) // FIONREAD
		queuedErr = err
		return err != nil || n > 0
	})
	if err == nil {
		err = queuedErr
	}
	return err
}

// lose marks the watch as unable to tell from now on; t.mu is held.
func (t *treeWatch) lose() {
	t.lost = true
	if t.rec != nil {
		t.rec.fill()
	}
}

// forget drops the watch wd from the folders watched; t.mu is held.
func (t *treeWatch) forget(wd int32) {
	if w, ok := t.dirs[wd]; ok && t.byPath[w.path] == wd {
		delete(t.byPath, w.path)
	}
	delete(t.dirs, wd)
}

// watch watches dirs and every folder under them as one group.
func (t *treeWatch) watch(dirs []string) *treeGroup {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	g := &treeGroup{t: t, roots: dirs}
	for _, d := range dirs {
		g.rootIDs = append(g.rootIDs, idOf(d))
		t.addTree(g, d)
	}
	return g
}

// fileID tells one file from another: a folder removed and made again at
// the same path is another.
type fileID struct {
	dev, ino uint64
}

// idOf returns the file at path's ID; zero when it cannot be read.
func idOf(path string) fileID {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return fileID{}
	}
	return fileID{dev: st.Dev, ino: st.Ino}
}

// addTree watches dir and the folders under it for g; t.mu is held.
func (t *treeWatch) addTree(g *treeGroup, dir string) {
	if t.fd < 0 {
		t.lose()
		return
	}
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
			t.lose()
			return filepath.SkipAll
		}
		if !d.IsDir() {
			return nil
		}
		if len(t.dirs) >= maxTreeWatches {
			t.lose()
			return filepath.SkipAll
		}
		wd, err := unix.InotifyAddWatch(t.fd, p, treeWatchMask)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				return filepath.SkipDir // removed while walked
			}
			t.lose()
			return filepath.SkipAll
		}
		if w, ok := t.dirs[int32(wd)]; ok && w.group != g {
			// One folder in two groups: its changes would count for
			// one only.
			t.lose()
			return filepath.SkipAll
		}
		if _, ok := t.dirs[int32(wd)]; !ok {
			g.wds = append(g.wds, int32(wd))
		}
		t.dirs[int32(wd)] = watchedDir{path: p, group: g}
		t.byPath[p] = int32(wd)
		return nil
	})
}

// generation reads the events queued so far and returns a number that
// changes whenever something changed under the group's folders since the
// last call; ok is false when the watch cannot tell, and the caller is to
// walk. A nil group cannot tell.
func (g *treeGroup) generation() (gen uint64, ok bool) {
	if g == nil {
		return 0, false
	}
	g.t.drain()
	return g.current()
}

// current is generation as of the last read of the events.
func (g *treeGroup) current() (gen uint64, ok bool) {
	if g == nil {
		return 0, false
	}
	g.t.mu.Lock()
	defer g.t.mu.Unlock()
	return g.gen, !g.t.lost && g.t.fd >= 0
}

// drain reads the events queued so far into the groups' generations.
func (t *treeWatch) drain() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lost || t.fd < 0 {
		return
	}
	type made struct {
		group *treeGroup
		path  string
	}
	var mades []made
	changed := map[*treeGroup]bool{}
	for {
		n, err := unix.Read(t.fd, t.buf[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			break
		}
		if err != nil || n <= 0 {
			t.lose()
			return
		}
		for b := t.buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
			wd := int32(binary.NativeEndian.Uint32(b[0:4]))
			mask := binary.NativeEndian.Uint32(b[4:8])
			size := int(binary.NativeEndian.Uint32(b[12:16]))
			name := b[unix.SizeofInotifyEvent:min(len(b), unix.SizeofInotifyEvent+size)]
			b = b[min(len(b), unix.SizeofInotifyEvent+size):]
			if mask&unix.IN_Q_OVERFLOW != 0 {
				t.lose()
				return
			}
			w, watched := t.dirs[wd]
			if !watched {
				continue // a group removed since
			}
			if mask&unix.IN_IGNORED != 0 {
				t.forget(wd)
				continue
			}
			changed[w.group] = true
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			madeDir := mask&unix.IN_ISDIR != 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0
			if madeDir {
				mades = append(mades, made{w.group, filepath.Join(w.path, string(name))})
			}
			if t.rec != nil {
				t.rec.add(w.path, string(name), mask, madeDir)
			}
		}
	}
	// The new folders are watched before the caller walks them.
	for _, m := range mades {
		t.addTree(m.group, m.path)
	}
	for c := range changed {
		c.gen++
	}
}

// watchesRoots reports whether each of the group's folders is still
// watched, once the events so far are read: a folder removed (or removed
// and made again) is not, and a group kept for another command must then
// be replaced.
func (g *treeGroup) watchesRoots() bool {
	if g == nil {
		return false
	}
	g.t.drain()
	t := g.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lost || t.fd < 0 {
		return false
	}
	// The watches of folders removed since are dropped from the group
	// too, so a group kept for a whole match does not grow with the
	// folders its bot made and the engine removed.
	live := g.wds[:0]
	roots := 0
	for _, wd := range g.wds {
		if w, ok := t.dirs[wd]; ok && w.group == g {
			live = append(live, wd)
			if slices.Contains(g.roots, w.path) {
				roots++
			}
		}
	}
	g.wds = live
	if roots != len(g.roots) {
		return false
	}
	// A root removed while its file is still in use (a bind mount of it)
	// reports no deletion yet: its path shows another file.
	for i, root := range g.roots {
		if id := idOf(root); id == (fileID{}) || id != g.rootIDs[i] {
			return false
		}
	}
	return true
}

// remove stops watching the group's folders. Events already queued for
// them are dropped when read.
func (g *treeGroup) remove() {
	if g == nil {
		return
	}
	t := g.t
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, wd := range g.wds {
		if w, ok := t.dirs[wd]; ok && w.group == g {
			t.forget(wd)
			if t.fd >= 0 {
				_, _ = unix.InotifyRmWatch(t.fd, uint32(wd))
			}
		}
	}
	g.wds = nil
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
	if t.poll != nil {
		t.poll.Close()
	}
}

// changeSet is what a watch saw change from a point on (see record): the
// entries its events named, the folders those entries are in, and the
// folders made or moved in, everything under which changed too. Its
// fields are held by the watch's mutex.
type changeSet struct {
	t     *treeWatch
	paths map[string]bool
	trees map[string]bool
	// full: past maxChanges, or the watch lost events: everything counts
	// as changed.
	full bool
}

// maxChanges bounds the entries a changeSet holds: a command that
// changes more in a tick is taken to have changed everything.
const maxChanges = 1 << 14

// record reads the events queued so far, then records those read from
// then on in a new changeSet, which replaces the last. nil when the watch
// cannot tell.
func (t *treeWatch) record() *changeSet {
	if t == nil {
		return nil
	}
	t.drain()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lost || t.fd < 0 {
		return nil
	}
	t.rec = &changeSet{t: t, paths: map[string]bool{}, trees: map[string]bool{}}
	return t.rec
}

// stopRecording ends the record started last: the events read from now
// on are recorded nowhere.
func (t *treeWatch) stopRecording() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rec = nil
}

// add records one event of the watched folder dir about its entry name
// (empty: about dir itself); t.mu is held.
func (c *changeSet) add(dir, name string, mask uint32, madeDir bool) {
	if c.full {
		return
	}
	c.paths[dir] = true
	if name != "" {
		p := filepath.Join(dir, name)
		c.paths[p] = true
		if madeDir {
			c.trees[p] = true
		}
	}
	if len(c.paths)+len(c.trees) > maxChanges {
		c.fill()
	}
}

// fill makes c take everything as changed; t.mu is held.
func (c *changeSet) fill() {
	c.full = true
	c.paths, c.trees = nil, nil
}

// saw reports whether path may have changed since c began, as far as the
// events read so far tell: it did, or a folder it is in was made since,
// or no watch would have seen it change (neither it nor its folder is
// watched). The caller reads the events before it asks.
func (c *changeSet) saw(path string) bool {
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	if c.full || c.paths[path] {
		return true
	}
	_, self := c.t.byPath[path]
	_, parent := c.t.byPath[filepath.Dir(path)]
	if !self && !parent {
		return true
	}
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if c.trees[d] {
			return true
		}
		if d == "/" || d == "." {
			return false
		}
	}
}
