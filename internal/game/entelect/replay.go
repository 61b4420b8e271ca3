package entelect

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/broadside/broadside/internal/bytesize"
)

// Caps on what a bot's own files add to a replay, on the platform and
// with --tournamentMode: a replay is stored and served for every match,
// and what a bot leaves in its round folder is its author's to choose.
// Real bots keep a few KiB of notes a round, if anything; the caps leave
// them a hundred times that, and bound a replay at twice the match cap
// plus the engine's own files (a few MiB on the large map) whatever the
// bots write. Without them a bot writing 4 MiB a round made a replay of
// some 400 MiB per bot. The protocol files (state.json and map.txt as
// the engine wrote them, place.txt and command.txt up to the size the
// engine reads) are not counted.
const (
	// MaxReplayRoundBytes is what one bot's files may add per round.
	MaxReplayRoundBytes = 256 << 10
	// MaxReplayRoundFiles is how many files of one bot a round keeps:
	// empty files cost the replay an entry each.
	MaxReplayRoundFiles = 64
	// MaxReplayMatchBytes is what one bot's files may add over a match:
	// 64 rounds at the round cap, of up to 201 on the large map.
	MaxReplayMatchBytes = 16 << 20
)

// replayWriter writes the replay folder (§3.5, §10). In tournament mode
// the files go first to a private folder beside the replay folder, outside
// every bot's sandbox (a bot's turn is shown only its own round folder),
// and are moved into the replay folder when the match ends, so nothing of
// a round is where the other bot could read it (policy §14.3) and nothing
// is held in memory. A later write of the same path wins.
type replayWriter struct {
	dir string
	// pending is the private folder in tournament mode, else "".
	pending string
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
	w := &replayWriter{dir: abs}
	if deferred {
		// Beside the replay folder rather than in it: the sandbox shows a
		// turn its round folder from inside the replay folder.
		w.pending, err = os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+"-pending-")
		if err != nil {
			return nil, fmt.Errorf("create the replay's private folder: %w", err)
		}
	}
	return w, nil
}

// path returns the absolute path of a file in the replay.
func (w *replayWriter) path(rel string) string { return filepath.Join(w.dir, rel) }

// write stores a file now, in the private folder in tournament mode.
func (w *replayWriter) write(rel string, data []byte) error {
	if w.pending != "" {
		return writeFile(w.pending, rel, data)
	}
	return w.writeNow(rel, data)
}

// writeNow stores a file in the replay folder immediately.
func (w *replayWriter) writeNow(rel string, data []byte) error {
	return writeFile(w.dir, rel, data)
}

// writeFile writes root/rel, creating its folder.
func writeFile(root, rel string, data []byte) error {
	p := filepath.Join(root, rel)
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

// takeFolder moves what a bot's round folder holds into the private folder
// and removes the round folder (tournament mode only). Regular files are
// kept within the caps of b; free gives the protocol files' allowances.
// The returned notes, for the bot's log, say what was left out. What the
// bot did to its own folder never stops the match.
func (w *replayWriter) takeFolder(rel string, b *replayBudget, free map[string]int64) []string {
	if w.pending == "" {
		return nil
	}
	dir := w.path(rel)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []string{fmt.Sprintf("round folder unreadable after the run: %v", err)}
	}
	files := make([]roundFile, 0, len(entries))
	for _, e := range entries {
		f := roundFile{name: e.Name(), regular: e.Type().IsRegular()}
		if f.regular {
			info, err := e.Info()
			if err != nil {
				f.regular = false
			} else {
				f.size = info.Size()
			}
		}
		files = append(files, f)
	}
	t := b.take(files, free)
	notes := t.notes(b)
	for _, f := range t.keep {
		if err := copyBotFile(filepath.Join(dir, f.name), filepath.Join(w.pending, rel, f.name), f.size); err != nil {
			notes = append(notes, fmt.Sprintf("replay: %s left out of the replay: %v", f.name, err))
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		notes = append(notes, fmt.Sprintf("round folder could not be removed after the run: %v", err))
	}
	return notes
}

// copyBotFile copies at most size bytes of a bot's file to dst, without
// following a symbolic link: the size is what was counted against the caps.
func copyBotFile(src, dst string, size int64) error {
	in, err := openNoFollow(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if fi, err := in.Stat(); err != nil || !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(in, size))
	return errors.Join(err, out.Close())
}

// flush moves the private folder's files into the replay folder, replacing
// what is there, and removes the private folder.
func (w *replayWriter) flush() error {
	if w.pending == "" {
		return nil
	}
	err := filepath.WalkDir(w.pending, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(w.pending, p)
		if err != nil {
			return err
		}
		dst := w.path(rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		// Rename replaces a file or a link at dst without following it.
		return os.Rename(p, dst)
	})
	err = errors.Join(err, os.RemoveAll(w.pending))
	w.pending = ""
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}

// roundFile is one entry of a bot's round folder after its turn.
type roundFile struct {
	name    string
	size    int64
	regular bool
}

// replayBudget is what one bot may still add to the replay: its files and
// the lines of its output in log.txt, over the match and in the current
// round.
type replayBudget struct {
	left int64 // of MaxReplayMatchBytes
	// round and files are what the current round took so far.
	round int64
	files int
}

func newReplayBudget() replayBudget { return replayBudget{left: MaxReplayMatchBytes} }

// newRound starts a round: the round's caps apply afresh.
func (b *replayBudget) newRound() { b.round, b.files = 0, 0 }

// fits reports whether n more bytes fit the round's and the match's caps.
func (b *replayBudget) fits(n int64) bool {
	return b.round+n <= MaxReplayRoundBytes && n <= b.left
}

// charge takes n bytes off the round's and the match's caps.
func (b *replayBudget) charge(n int64) {
	b.round += n
	b.left -= n
}

// roundTake is what one round folder gives the replay.
type roundTake struct {
	keep []roundFile
	// overRound and overMatch are the files left out for the round's caps
	// and for the match's; irregular the entries that are no files.
	overRound, overMatch, irregular []roundFile
}

// take decides, in name order, which files of a round folder the replay
// keeps, and charges them to b. A protocol file no larger than its
// allowance in free is kept and costs nothing; any other file is kept if
// it fits both the round's caps and what is left of the match's.
func (b *replayBudget) take(files []roundFile, free map[string]int64) roundTake {
	var t roundTake
	for _, f := range files {
		allowance, protocol := free[f.name]
		switch {
		case !f.regular:
			t.irregular = append(t.irregular, f)
		case protocol && f.size <= allowance:
			t.keep = append(t.keep, f)
		case b.files+1 > MaxReplayRoundFiles || b.round+f.size > MaxReplayRoundBytes:
			t.overRound = append(t.overRound, f)
		case f.size > b.left:
			t.overMatch = append(t.overMatch, f)
		default:
			t.keep = append(t.keep, f)
			b.files++
			b.charge(f.size)
		}
	}
	return t
}

// notes are the lines of the bot's log that say what t left out.
func (t roundTake) notes(b *replayBudget) []string {
	var notes []string
	if len(t.overRound) > 0 {
		notes = append(notes, fmt.Sprintf("replay: %s of files in your round folder were left out of the replay (cap %s and %d files per round, output included): %s",
			bytesize.Format(totalSize(t.overRound)), bytesize.Format(MaxReplayRoundBytes), MaxReplayRoundFiles, fileNames(t.overRound)))
	}
	if len(t.overMatch) > 0 {
		notes = append(notes, fmt.Sprintf("replay: %s of files in your round folder were left out of the replay (cap %s per match, %s left): %s",
			bytesize.Format(totalSize(t.overMatch)), bytesize.Format(MaxReplayMatchBytes), bytesize.Format(b.left), fileNames(t.overMatch)))
	}
	if len(t.irregular) > 0 {
		notes = append(notes, fmt.Sprintf("replay: entries of your round folder that are not regular files were left out of the replay: %s",
			fileNames(t.irregular)))
	}
	return notes
}

func totalSize(files []roundFile) int64 {
	var n int64
	for _, f := range files {
		n += f.size
	}
	return n
}

// fileNames lists up to five names, then how many more.
func fileNames(files []roundFile) string {
	const shown = 5
	names := make([]string, 0, shown)
	for _, f := range files[:min(len(files), shown)] {
		names = append(names, strconv.Quote(f.name))
	}
	s := strings.Join(names, ", ")
	if len(files) > shown {
		s += fmt.Sprintf(" and %d more", len(files)-shown)
	}
	return s
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
