//go:build linux

package sandbox

import (
	"strings"

	"golang.org/x/sys/unix"
)

// sessionDisk accounts for what all the commands of a session wrote, so a
// bot cannot fill the disk a turn at a time, each turn within DiskBytes.
// The session's own folders (the bot's) are measured from the session's
// start; each command's own folders (a round folder, seen by that turn
// only) are measured once, after the command, and added up.
type sessionDisk struct {
	start   unix.Timespec // the file clock when the session started
	own     []string      // the session's writable folders
	rounds  int64         // what earlier commands wrote in their own folders
	spent   int64         // everything written so far, as last measured
	pending chan diskSpent
	// tree watches own; while it saw no change since own was last walked
	// (at generation ownGen, valid when ownKnown), ownLast still holds.
	tree     *treeGroup
	ownGen   uint64
	ownKnown bool
	ownLast  int64
}

// diskSpent is one measure after a command, and the generation of the
// session's watch the walk of its own folders started at.
type diskSpent struct {
	own, command int64
	ownGen       uint64
	ownKnown     bool
}

// settle waits for the measure of the previous command, which usually
// finished while the engine did its own work between turns.
func (d *sessionDisk) settle() {
	if d.pending == nil {
		return
	}
	r := <-d.pending
	d.pending = nil
	d.rounds += r.command
	d.spent = r.own + d.rounds
	d.ownLast, d.ownGen, d.ownKnown = r.own, r.ownGen, r.ownKnown
}

// account measures, in the background, what the command whose changes
// since counts wrote. Walks stop past limit, which is all the caller needs
// to know.
func (d *sessionDisk) account(commandMounts []Mount, since changedSince, limit int64) {
	extra := commandDirs(d.own, commandMounts)
	own, start, tree := d.own, d.start, d.tree
	known, last, lastGen := d.ownKnown, d.ownLast, d.ownGen
	ch := make(chan diskSpent, 1)
	go func() {
		var r diskSpent
		// Most turns write only in their round folder: the bot's own
		// folders are walked again only when their watch saw a change.
		r.ownGen, r.ownKnown = tree.generation()
		if r.ownKnown && known && r.ownGen == lastGen {
			r.own = last
		} else {
			r.own = measureSince(own, changedFrom(start), limit, -1).bytes
		}
		if len(extra) > 0 {
			r.command = measureSince(extra, since, limit, -1).bytes
		}
		ch <- r
	}()
	d.pending = ch
}

// commandDirs lists the writable folders of a command's own mounts that
// are not within the session's folders own.
func commandDirs(own []string, mounts []Mount) []string {
	var extra []string
	for _, dir := range writableDirs(mounts) {
		if !within(dir, own) {
			extra = append(extra, dir)
		}
	}
	return extra
}

// within reports whether dir is one of dirs or inside one of them.
func within(dir string, dirs []string) bool {
	for _, d := range dirs {
		if dir == d || strings.HasPrefix(dir, d+"/") {
			return true
		}
	}
	return false
}
