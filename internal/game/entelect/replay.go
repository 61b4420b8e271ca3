package entelect

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/flate"

	"github.com/broadside/broadside/internal/botzip"
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

// replayWriter writes the replay (§3.5, §10). In tournament mode nothing
// of a round may be where the other bot could read it until the match
// ends (policy §14.3): a bot's turn is shown only its own round folder,
// and every other file is held by the writer, outside every sandbox.
// Held files go at the end to the replay folder, or, when the replay is
// wanted as a zip archive (the platform), to the archive round by round
// as rounds are sealed, so a match holds at most two rounds in memory and
// creates no file of the replay but the bots' own round folders. A later
// write of the same path wins.
type replayWriter struct {
	dir string
	// held are the files not yet in the archive or the folder, by path in
	// the replay; nil when files go to the folder at once.
	held map[string]heldFile
	// archive receives held files when the replay is a zip; zipTo is
	// where the replay folder is zipped at the end when not in tournament
	// mode.
	archive *zip.Writer
	zipTo   io.Writer
	// flater compresses the archive's entries one after the other.
	flater *flate.Writer
	// sealing delivers the end of the files being put into the archive in
	// the background (seal); nil when none are.
	sealing chan error
}

// heldFile is a file of the replay and when it was written.
type heldFile struct {
	data []byte
	mod  time.Time
}

// newReplayWriter writes the replay folder dir; deferred holds files until
// the match ends (tournament mode); zipTo, when set, receives the replay
// as a zip archive instead of the folder's files.
func newReplayWriter(dir string, deferred bool, zipTo io.Writer) (*replayWriter, error) {
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
	switch {
	case deferred && zipTo != nil:
		w.held = map[string]heldFile{}
		w.archive = zip.NewWriter(zipTo)
		// JSON and text compress almost as well at the fastest level, at
		// a third of the CPU of the default. klauspost/compress's fastest
		// level takes half the CPU of the standard library's on a round's
		// files (86 against 192 µs for the 14 files of a 10x10 round), for
		// a slightly smaller archive: the zip is most of what the worker
		// spends on a replay.
		w.archive.RegisterCompressor(zip.Deflate, w.compressor)
	case deferred:
		w.held = map[string]heldFile{}
	default:
		w.zipTo = zipTo
	}
	return w, nil
}

// compressor is the archive's deflate compressor, one writer reset for
// each entry: entries are written one at a time.
func (w *replayWriter) compressor(out io.Writer) (io.WriteCloser, error) {
	if w.flater == nil {
		f, err := flate.NewWriter(out, flate.BestSpeed)
		if err != nil {
			return nil, err
		}
		w.flater = f
	} else {
		w.flater.Reset(out)
	}
	return w.flater, nil
}

// path returns the absolute path of a file in the replay.
func (w *replayWriter) path(rel string) string { return filepath.Join(w.dir, rel) }

// write stores a file: held in tournament mode, else in the folder now.
func (w *replayWriter) write(rel string, data []byte) error {
	if w.held != nil {
		w.held[filepath.ToSlash(rel)] = heldFile{data: data, mod: time.Now()}
		return nil
	}
	return w.writeNow(rel, data)
}

// writeNow stores a file in the replay folder immediately.
func (w *replayWriter) writeNow(rel string, data []byte) error {
	return writeFile(w.dir, rel, data)
}

// writeBotFiles writes the files a bot reads into its round folder, at
// dir on the host, at once. Creating files and folders is most of what a
// round costs the worker, so it is done with as few system calls as the
// bot's safety allows: the folder made when missing, each file written
// over the one of the round before that a turn folder keeps
// (rewriteFile), else created exclusively (a symbolic link the bot left
// there is replaced, never followed), nothing synced.
func (w *replayWriter) writeBotFiles(dir string, names [2]string, data [2][]byte) error {
	if err := makeFolder(dir); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	for i, name := range names {
		if err := rewriteFile(filepath.Join(dir, name), data[i]); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	}
	return nil
}

// makeFolder creates dir and the folders above it that are missing: one
// mkdir when only dir is, where os.MkdirAll stats every folder first.
func makeFolder(dir string) error {
	err := os.Mkdir(dir, 0o755)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
		return err
	}
	if err := makeFolder(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
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

// folderTake is what a bot's round folder gave the replay after a turn.
type folderTake struct {
	files []namedFile
	// notes, for the bot's log, say what was left out.
	notes []string
	// emptied is set when a kept folder was emptied.
	emptied bool
}

// takeFolder reads what a bot's round folder rel holds, at dir on the
// host, for the replay (tournament mode only), and removes the folder,
// or, with keep (a seat's turn folder), everything in it. Regular files
// are taken within the caps of b; free gives the protocol files'
// allowances. It touches only the folder and b, so the two seats' calls
// may run at once; what it took goes to the held files with hold.
// read is the command file as the engine read it after the turn.
// What the bot did to its own folder never stops the match.
func takeFolder(rel, dir string, keep bool, b *replayBudget, free map[string]int64, read botFile) folderTake {
	var out folderTake
	entries, err := os.ReadDir(dir)
	if err != nil {
		out.notes = []string{fmt.Sprintf("round folder unreadable after the run: %v", err)}
		return out
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
	out.notes = t.notes(b)
	for _, f := range t.keep {
		if f.name == read.name && f.size == int64(len(read.data)) {
			// The command file, read already: the bot has ended.
			out.files = append(out.files, namedFile{name: filepath.ToSlash(filepath.Join(rel, f.name)),
				heldFile: heldFile{data: read.data, mod: time.Now()}})
			continue
		}
		data, err := readBotFile(filepath.Join(dir, f.name), int(f.size))
		if err != nil {
			out.notes = append(out.notes, fmt.Sprintf("replay: %s left out of the replay: %v", f.name, err))
			continue
		}
		out.files = append(out.files, namedFile{name: filepath.ToSlash(filepath.Join(rel, f.name)),
			heldFile: heldFile{data: data, mod: time.Now()}})
	}
	if keep {
		if err := emptyFolder(dir, files, playerFiles[:]); err != nil {
			out.notes = append(out.notes, fmt.Sprintf("round folder could not be emptied after the run: %v", err))
			return out
		}
		out.emptied = true
		return out
	}
	if err := removeFolder(dir, files); err != nil {
		out.notes = append(out.notes, fmt.Sprintf("round folder could not be removed after the run: %v", err))
	}
	return out
}

// hold adds files taken from a round folder to the held files.
func (w *replayWriter) hold(files []namedFile) {
	for _, f := range files {
		w.held[f.name] = f.heldFile
	}
}

// seal moves the held files into the archive, all but those in the folder
// keep (the last round played, whose files the match's end may still
// write again); without an archive it does nothing. The files leave the
// held ones at once and are compressed in the background, beside the
// next round's turns, where the bots' round would otherwise wait for it;
// the next seal, and flush, wait for it first and return its error.
func (w *replayWriter) seal(keep string) error {
	if w.archive == nil {
		return nil
	}
	prefix := filepath.ToSlash(keep) + "/"
	var batch []namedFile
	for name, f := range w.held {
		if keep == "" || !strings.HasPrefix(name, prefix) {
			batch = append(batch, namedFile{name: name, heldFile: f})
			delete(w.held, name)
		}
	}
	slices.SortFunc(batch, func(a, b namedFile) int { return strings.Compare(a.name, b.name) })
	if err := w.sealed(); err != nil {
		return err
	}
	if len(batch) == 0 {
		return nil
	}
	done := make(chan error, 1)
	w.sealing = done
	go func() { done <- w.archiveFiles(batch) }()
	return nil
}

// namedFile is a held file and its path in the replay.
type namedFile struct {
	name string
	heldFile
}

// sealed waits for the files being sealed in the background, if any.
func (w *replayWriter) sealed() error {
	if w.sealing == nil {
		return nil
	}
	err := <-w.sealing
	w.sealing = nil
	return err
}

// storeBelow is the size under which an entry is stored as it is: a
// deflate stream of a few bytes is no smaller (a command.txt is six), and
// each compressed entry costs the worker a block of its own.
const storeBelow = 64

// archiveFiles writes files into the archive, in order.
func (w *replayWriter) archiveFiles(files []namedFile) error {
	for _, f := range files {
		method := zip.Deflate
		if len(f.data) < storeBelow {
			method = zip.Store
		}
		zf, err := w.archive.CreateHeader(&zip.FileHeader{Name: f.name, Method: method, Modified: f.mod})
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		if _, err := zf.Write(f.data); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	}
	return nil
}

// flush ends the replay: the held files go to the archive or the folder,
// or, with a zip wanted of a folder written as the match went, the
// folder is zipped.
func (w *replayWriter) flush() error {
	switch {
	case w.archive != nil:
		err := w.seal("")
		err = errors.Join(err, w.sealed())
		w.held = nil
		if err := errors.Join(err, w.archive.Close()); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	case w.held != nil:
		names := slices.Sorted(maps.Keys(w.held))
		for _, name := range names {
			if err := writeFile(w.dir, filepath.FromSlash(name), w.held[name].data); err != nil {
				return err
			}
		}
		w.held = nil
	case w.zipTo != nil:
		return botzip.WriteFolder(w.zipTo, w.dir, botzip.FolderOptions{})
	}
	return nil
}

// removeFolder removes a round folder from its entries, read after the
// turn: emptied (emptyFolder) and a rmdir, where os.RemoveAll reads the
// folder again; os.RemoveAll when that fails.
func removeFolder(dir string, files []roundFile) error {
	if emptyFolder(dir, files, nil) != nil || os.Remove(dir) != nil {
		return os.RemoveAll(dir)
	}
	return nil
}

// emptyFolder removes what a turn folder holds, read after the turn, and
// keeps the folder: one unlink a file. Regular files named in keep, the
// engine's, stay to be written over next turn. The bot is not running:
// nothing is added meanwhile, and a folder it made is removed whole
// without following its links.
func emptyFolder(dir string, files []roundFile, keep []string) error {
	for _, f := range files {
		if f.regular && slices.Contains(keep, f.name) {
			continue
		}
		p := filepath.Join(dir, f.name)
		err := os.Remove(p)
		if err != nil && !f.regular {
			err = os.RemoveAll(p)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
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
