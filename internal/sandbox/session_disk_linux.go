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
}

// diskSpent is one measure after a command.
type diskSpent struct{ own, command int64 }

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
}

// account measures, in the background, what the command that started at
// since wrote. Walks stop past limit, which is all the caller needs to know.
func (d *sessionDisk) account(commandMounts []Mount, since unix.Timespec, limit int64) {
	var extra []string
	for _, dir := range writableDirs(commandMounts) {
		if !within(dir, d.own) {
			extra = append(extra, dir)
		}
	}
	own, start := d.own, d.start
	ch := make(chan diskSpent, 1)
	go func() {
		var r diskSpent
		r.own = measureSince(own, start, limit, -1).bytes
		if len(extra) > 0 {
			r.command = measureSince(extra, since, limit, -1).bytes
		}
		ch <- r
	}()
	d.pending = ch
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
