package entelect

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Caps on what the engine reads back from a bot's round folder.
const (
	maxBotFile   = 1 << 20
	maxBotFolder = 4 << 20
)

// replayWriter writes the replay folder (§3.5, §10). In tournament mode it
// keeps every file in memory and writes them all when the match ends, so
// nothing of a round stays on disk where the other bot could read it
// (policy §14.3). Files are flushed in the order they were written, so a
// later write of the same path wins.
type replayWriter struct {
	dir      string
	deferred bool
	pending  []pendingFile
}

type pendingFile struct {
	rel  string
	data []byte
}

func newReplayWriter(dir string, deferred bool) (*replayWriter, error) {
	if dir == "" {
		return nil, errors.New("replay folder not set")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("replay folder %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("create replay folder: %w", err)
	}
	return &replayWriter{dir: abs, deferred: deferred}, nil
}

// path returns the absolute path of a file in the replay.
func (w *replayWriter) path(rel string) string { return filepath.Join(w.dir, rel) }

// write stores a file now, or at the end in tournament mode.
func (w *replayWriter) write(rel string, data []byte) error {
	if w.deferred {
		w.pending = append(w.pending, pendingFile{rel, data})
		return nil
	}
	return w.writeNow(rel, data)
}

// writeNow stores a file immediately, creating its folder.
func (w *replayWriter) writeNow(rel string, data []byte) error {
	p := w.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	// A bot may have left a symbolic link where the engine writes (its
	// round folder's state.json at game end): replace it, never follow it.
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("replay: %w", err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}

// takeFolder moves what a bot's round folder holds into the pending files
// and removes the folder (tournament mode only). Only regular files up to
// the caps are kept; the returned notes say what was dropped. What the bot
// did to its own folder never stops the match.
func (w *replayWriter) takeFolder(rel string) []string {
	if !w.deferred {
		return nil
	}
	dir := w.path(rel)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []string{fmt.Sprintf("round folder unreadable after the run: %v", err)}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var notes []string
	total := 0
	for _, e := range entries {
		if !e.Type().IsRegular() {
			notes = append(notes, fmt.Sprintf("%s dropped from the replay: not a regular file", e.Name()))
			continue
		}
		data, err := readBotFile(filepath.Join(dir, e.Name()), maxBotFile)
		if err != nil || total+len(data) > maxBotFolder {
			notes = append(notes, fmt.Sprintf("%s dropped from the replay: too large or unreadable", e.Name()))
			continue
		}
		total += len(data)
		w.pending = append(w.pending, pendingFile{filepath.Join(rel, e.Name()), data})
	}
	if err := os.RemoveAll(dir); err != nil {
		notes = append(notes, fmt.Sprintf("round folder could not be removed after the run: %v", err))
	}
	return notes
}

// flush writes the pending files.
func (w *replayWriter) flush() error {
	var errs []error
	for _, f := range w.pending {
		if err := w.writeNow(f.rel, f.data); err != nil {
			errs = append(errs, err)
		}
	}
	w.pending = nil
	return errors.Join(errs...)
}

// errTooLarge is returned for bot files over the cap.
var errTooLarge = errors.New("file too large")

// readBotFile reads a file a bot wrote without following a symbolic link
// or blocking on a FIFO, up to max bytes.
func readBotFile(path string, max int) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > max {
		return nil, errTooLarge
	}
	return data, nil
}
