//go:build linux

package sandbox

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// defaultDiskBytes is BwrapConfig.DiskBytes when zero.
const defaultDiskBytes = 256 << 20

// defaultSessionDiskBytes is BwrapConfig.SessionDiskBytes when zero.
const defaultSessionDiskBytes = 1 << 30

// defaultDiskFiles is BwrapConfig.DiskFiles when zero: empty files cost no
// bytes but use up inodes.
const defaultDiskFiles = 100_000

// diskPoll is how often, at most, the writable folders are walked. A walk
// costs a stat per file: the next one waits at least four times as long as
// the last took, so big folders cost the worker at most a fifth of a core.
const diskPoll = 20 * time.Millisecond

// diskIdlePoll is how often the folders are walked while their watches
// (treeWatch) report no change: a last resort for a change that reaches
// no watch, which would add nothing to what the folders hold.
const diskIdlePoll = 250 * time.Millisecond

// folderUse is what a command wrote in a set of folders.
type folderUse struct {
	bytes int64
	files int
}

// fileClock is the clock the kernel stamps files with: the coarse real-time
// clock, which may lag time.Now by a tick. A file changed after fileClock
// was read has a change time at or after it.
func fileClock() unix.Timespec {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts); err != nil {
		// Without the coarse clock, a tick earlier than the fine one is as
		// safe: it may count a little written just before the command.
		ts = unix.NsecToTimespec(time.Now().Add(-20 * time.Millisecond).UnixNano())
	}
	return ts
}

// fileClockAfter returns the file clock once it is past t: a file changed
// at or before t does not count as changed since the time returned. The
// coarse clock moves every few milliseconds; a clock set back waits no
// more than fileClockWait.
func fileClockAfter(t unix.Timespec) unix.Timespec {
	deadline := time.Now().Add(fileClockWait)
	for {
		now := fileClock()
		if now.Sec > t.Sec || (now.Sec == t.Sec && now.Nsec > t.Nsec) || time.Now().After(deadline) {
			return now
		}
		time.Sleep(time.Millisecond)
	}
}

// fileClockWait bounds fileClockAfter's wait: many ticks of the coarse
// clock at any HZ.
const fileClockWait = 50 * time.Millisecond

// changedSince is what a walk of a command's folders counts: every entry
// whose change time is at or after from. The kernel stamps change times
// with the coarse clock, so an entry stamped in from's tick may have been
// written just before the command started, by the same session's previous
// command: when that command ended in from's tick, until is the fine clock
// read just after it ended, and an entry stamped no later than until
// counts only where seen says it changed since this command began.
type changedSince struct {
	from  unix.Timespec
	until unix.Timespec
	seen  *changeSet
}

// changedFrom counts every entry changed at or after from.
func changedFrom(from unix.Timespec) changedSince {
	return changedSince{from: from}
}

// counts reports whether the entry at path, last changed at ctime, counts.
func (c changedSince) counts(path string, ctime unix.Timespec) bool {
	if before(ctime, c.from) {
		return false
	}
	if c.seen == nil || before(c.until, ctime) {
		return true
	}
	return c.seen.saw(path)
}

// before reports whether a is earlier than b.
func before(a, b unix.Timespec) bool {
	return a.Sec < b.Sec || (a.Sec == b.Sec && a.Nsec < b.Nsec)
}

// diskWatch returns a watchdog that reports when a command has written
// more than the configured bytes or entries to its writable folders since
// the file clock read since, taken before the command started. RLIMIT_FSIZE
// bounds each file; this bounds them all.
//
// It counts every file and folder whose change time is at or after since:
// the kernel sets that time on every write, and no process can set it back,
// so nothing written during the command escapes, however early or however
// disguised. Nothing needs measuring before the command starts, so a fast
// writer cannot hide its first writes in a baseline. A file that existed
// before counts whole once changed; RLIMIT_FSIZE keeps that bounded. What
// other commands write elsewhere on the same file system never counts.
//
// spent is what the command's session wrote before it (negative outside a
// session): the command is also stopped when the two together are over
// the session's bound.
//
// groups, when given, watch writable folders: those folders are then walked
// only at a tick after their watch saw a change, or diskIdlePoll after
// their last walk, and what they held at their last walk counts meanwhile.
// Nothing the command writes is there before it starts, so until a change
// a watched folder counts nothing. Folders no watch covers (or whose watch
// cannot tell) are walked at every tick.
func (b *Bwrap) diskWatch(mounts []Mount, since changedSince, spent int64, trees ...*treeGroup) func() string {
	d := b.newDiskWatcher(mounts, since, spent, trees...)
	if d == nil {
		return nil
	}
	return d.check
}

// diskWatcher is diskWatch's watchdog with what it needs between checks.
type diskWatcher struct {
	since        changedSince
	limit        int64 // per command; negative: none
	sessionLimit int64 // negative: none
	spent        int64
	maxFiles     int
	groups       []watchGroup
	// next is the earliest time of the next walk: a walk waits at least
	// four times as long as the last took.
	next time.Time
}

// newDiskWatcher is diskWatch's watchdog; nil when there is nothing to
// watch.
func (b *Bwrap) newDiskWatcher(mounts []Mount, since changedSince, spent int64, trees ...*treeGroup) *diskWatcher {
	limit := b.cfg.DiskBytes
	if limit == 0 {
		limit = defaultDiskBytes
	}
	sessionLimit := b.sessionDiskLimit()
	if spent < 0 {
		sessionLimit = -1
	}
	maxFiles := b.cfg.DiskFiles
	if maxFiles == 0 {
		maxFiles = defaultDiskFiles
	}
	if limit < 0 && maxFiles < 0 && sessionLimit < 0 {
		return nil
	}
	dirs := writableDirs(mounts)
	if len(dirs) == 0 {
		return nil
	}
	return &diskWatcher{since: since, limit: limit, sessionLimit: sessionLimit, spent: spent, maxFiles: maxFiles,
		groups: watchGroups(dirs, trees)}
}

// check walks the folders that are due and says why the command is to be
// stopped, if it is.
func (d *diskWatcher) check() string {
	// The changes are read at every check, so that quiet knows of a change
	// whose walk is held back.
	drainGroups(d.groups)
	start := time.Now()
	if start.Before(d.next) {
		return ""
	}
	walkLimit := d.limit
	if d.sessionLimit >= 0 && (walkLimit < 0 || d.sessionLimit-d.spent < walkLimit) {
		walkLimit = max(d.sessionLimit-d.spent, 0)
	}
	// Each group is walked when due; each walk stops past the bounds,
	// which is all a verdict needs.
	walked := false
	var u folderUse
	for i := range d.groups {
		g := &d.groups[i]
		if g.due(start) {
			g.use = measureSince(g.dirs, d.since, walkLimit, d.maxFiles)
			walked = true
		}
		u.bytes += g.use.bytes
		u.files += g.use.files
	}
	if !walked {
		return ""
	}
	d.next = start.Add(max(diskPoll, 4*time.Since(start)))
	switch {
	case d.limit >= 0 && u.bytes > d.limit:
		return fmt.Sprintf("wrote more than %d bytes to its folders", d.limit)
	case d.sessionLimit >= 0 && d.spent+u.bytes > d.sessionLimit:
		return sessionDiskReason(d.sessionLimit)
	case d.maxFiles >= 0 && u.files > d.maxFiles:
		return fmt.Sprintf("created more than %d files in its folders", d.maxFiles)
	}
	return ""
}

// quiet reports, after a check, until when the next check would find
// nothing to do unless the watch returned reports a change: every folder
// is watched by that one watch, which can tell and saw no change since
// the folders' last walk. ok is false otherwise (a change whose walk is
// held back among them): the check is then to run at every tick.
func (d *diskWatcher) quiet() (until time.Time, watch *treeWatch, ok bool) {
	for i := range d.groups {
		g := &d.groups[i]
		if g.tree == nil || (watch != nil && g.tree.t != watch) {
			return time.Time{}, nil, false
		}
		watch = g.tree.t
		if gen, ok := g.tree.current(); !ok || !g.known || gen != g.gen {
			return time.Time{}, nil, false
		}
		if idle := g.walkedAt.Add(diskIdlePoll); until.IsZero() || idle.Before(until) {
			until = idle
		}
	}
	return until, watch, watch != nil
}

// watchGroup is a command's writable folders that one watch covers (tree
// nil: none does), and what they held at their last walk.
type watchGroup struct {
	dirs     []string
	tree     *treeGroup
	use      folderUse
	gen      uint64 // the watch's generation read before the last walk
	known    bool   // use and gen hold: the watch could tell, and did
	walkedAt time.Time
}

// watchGroups sorts dirs by the watch that covers them. A watched group
// starts known (empty, at the watch's current generation): the command has
// not started yet.
func watchGroups(dirs []string, trees []*treeGroup) []watchGroup {
	now := time.Now()
	var groups []watchGroup
	var unwatched []string
	for _, d := range dirs {
		i := slices.IndexFunc(trees, func(t *treeGroup) bool { return t != nil && within(d, t.roots) })
		if i < 0 {
			unwatched = append(unwatched, d)
			continue
		}
		j := slices.IndexFunc(groups, func(g watchGroup) bool { return g.tree == trees[i] })
		if j < 0 {
			g := watchGroup{tree: trees[i], walkedAt: now}
			g.gen, g.known = g.tree.generation()
			groups = append(groups, g)
			j = len(groups) - 1
		}
		groups[j].dirs = append(groups[j].dirs, d)
	}
	if len(unwatched) > 0 {
		groups = append(groups, watchGroup{dirs: unwatched})
	}
	return groups
}

// drainGroups reads the events of each watch of groups once (a session's
// groups share one): a read per tick, however many groups.
func drainGroups(groups []watchGroup) {
	for i, g := range groups {
		if g.tree == nil || slices.ContainsFunc(groups[:i], func(o watchGroup) bool { return o.tree != nil && o.tree.t == g.tree.t }) {
			continue
		}
		g.tree.t.drain()
	}
}

// due reports whether the group is to be walked now: its watch saw a
// change or cannot tell, or diskIdlePoll passed. The events are read
// (drainGroups) before the walk, so a change during it is seen at the
// next tick.
func (g *watchGroup) due(now time.Time) bool {
	// Within a tick of falling due counts as due, so that the walk shares
	// a wake-up of a sleeping watch with its other checks.
	gen, ok := g.tree.current()
	if ok && g.known && gen == g.gen && now.Sub(g.walkedAt) < diskIdlePoll-watchdogPoll {
		return false
	}
	g.gen, g.known, g.walkedAt = gen, ok, now
	return true
}

// sessionDiskLimit is the configured bound on what a session's commands
// write together; negative means none.
func (b *Bwrap) sessionDiskLimit() int64 {
	if b.cfg.SessionDiskBytes == 0 {
		return defaultSessionDiskBytes
	}
	return b.cfg.SessionDiskBytes
}

// sessionDiskReason says why a session's command was stopped or not run.
func sessionDiskReason(limit int64) string {
	return fmt.Sprintf("wrote more than %d bytes to its folders over the session", limit)
}

// measureSince sums what was written under dirs at or after since, without
// following symbolic links: the size of every entry changed since then, the
// larger of its allocated blocks and its length, as some file systems
// allocate blocks only when they write back. It stops as soon as the sum is
// over maxBytes or maxFiles (negative: no bound), so a folder of millions of
// new files is not walked to its end.
func measureSince(dirs []string, since changedSince, maxBytes int64, maxFiles int) folderUse {
	var u folderUse
	over := func() bool {
		return (maxBytes >= 0 && u.bytes > maxBytes) || (maxFiles >= 0 && u.files > maxFiles)
	}
	for _, dir := range dirs {
		if over() {
			break
		}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			st, ok := fi.Sys().(*syscall.Stat_t)
			if !ok || !since.counts(p, unix.Timespec{Sec: st.Ctim.Sec, Nsec: st.Ctim.Nsec}) {
				return nil
			}
			u.files++
			u.bytes += max(st.Blocks*512, st.Size)
			if over() {
				return filepath.SkipAll
			}
			return nil
		})
	}
	return u
}

// writableDirs lists the host folders of the writable mounts, none inside
// another.
func writableDirs(mounts []Mount) []string {
	var dirs []string
	for _, m := range mounts {
		if m.Writable {
			dirs = append(dirs, filepath.Clean(m.Source))
		}
	}
	return outermost(dirs)
}

// outermost drops the folders that lie inside another of them, so nothing
// is counted twice.
func outermost(dirs []string) []string {
	var out []string
	for i, d := range dirs {
		inside := false
		for j, o := range dirs {
			if i != j && (strings.HasPrefix(d, o+"/") || (d == o && j < i)) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, d)
		}
	}
	return out
}
