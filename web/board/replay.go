package board

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/broadside/broadside/internal/game"
	entelectrules "github.com/broadside/broadside/internal/game/entelect"
)

// Caps on what the viewer reads from a replay, whatever its origin.
const (
	maxReplayJSON = 32 << 20 // a thirty-ship Hit and Sunk replay stays well below
	maxRoundFile  = 4 << 20  // one Entelect file (a 14×14 state.json is ~60 KiB)
	maxShownText  = 64 << 10 // one raw file or log shown on the page
)

// ErrNoReplay means the folder or zip holds no replay the viewer knows.
var ErrNoReplay = errors.New("no replay found: expected Entelect round folders (\"Phase 1 - Round 0\") or a replay.json")

// Options say how a frame is drawn for one viewer.
type Options struct {
	// Names maps a seat's key to the name to show (the portal's bot
	// name); a replay holds the names bots call themselves.
	Names map[string]string
	// ShowLog reports whether the viewer may read the seat's own log
	// (its owner, or anyone locally).
	ShowLog func(key string) bool
	// Logs are the seats' logs of the whole match, by key, for the rule
	// sets whose replay.json holds none (the portal keeps them apart);
	// each step shows its own lines. Without them a replay folder's
	// <key>/log.txt is read, as the battleship command writes it.
	Logs map[string]string

	// inProgress says the replay is a match still being played (Live):
	// its last step is not its end, and its totals are not known yet.
	inProgress bool
	// fileLog reads a seat's log from the replay's own folder.
	fileLog func(key string) (string, bool)
}

func (o Options) name(key, own string) string {
	if s := o.Names[key]; s != "" {
		return s
	}
	return own
}

func (o Options) showLog(key string) bool { return o.ShowLog != nil && o.ShowLog(key) }

// stepLog is the part of seat key's log (its bot shown as name) that
// belongs to a step, for a viewer who may read it: the lines under the
// first of labels the log marks (game.StepMark); nothing when the viewer
// may not read it or there is no log.
func (o Options) stepLog(key, name string, labels ...string) (File, bool) {
	if !o.showLog(key) {
		return File{}, false
	}
	log, ok := o.Logs[key]
	if !ok && o.fileLog != nil {
		log, ok = o.fileLog(key)
	}
	if !ok {
		return File{}, false
	}
	for _, l := range labels {
		if lines, found := game.StepLog(log, l); found {
			return File{Name: name, Text: shownText([]byte(lines))}, true
		}
	}
	return File{Name: name, Text: "Nothing of your bot in this step: it was not asked to play."}, true
}

// rules is one rule set's replay, decoded once.
type rules interface {
	count() int
	frame(i int, o Options) (*Frame, error)
	scores(o Options) []Series
}

// Replay is a replay opened for viewing. It is safe for concurrent use.
type Replay struct {
	name string
	g    rules
	// inProgress marks a replay assembled from a running match's rounds.
	inProgress bool
	// fsys and root are where replay.json was found, whose folder may hold
	// each seat's <key>/log.txt (the battleship command writes them).
	fsys fs.FS
	root string

	once   sync.Once
	series []Series
}

// Open reads a replay from a folder or zip: Entelect round folders, or the
// replay.json of the other rule sets, at the root or one folder down (a
// zipped folder). A round folder with missing files is drawn from what it
// has.
func Open(fsys fs.FS) (*Replay, error) {
	for _, root := range candidates(fsys) {
		if dirs, err := entelectRounds(fsys, root); err != nil {
			return nil, err
		} else if len(dirs) > 0 {
			return &Replay{name: entelectrules.Name, g: &entelectGame{fsys: fsys, rounds: dirs}}, nil
		}
		data, err := readCapped(fsys, path.Join(root, "replay.json"), maxReplayJSON)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rp, err := openJSON(data)
		if err != nil {
			return nil, err
		}
		rp.fsys, rp.root = fsys, root
		return rp, nil
	}
	return nil, ErrNoReplay
}

// candidates are the folders a replay may start in: the root, then each
// folder at the root.
func candidates(fsys fs.FS) []string {
	out := []string{"."}
	entries, _ := fs.ReadDir(fsys, ".")
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), "Phase ") {
			out = append(out, e.Name())
		}
	}
	return out
}

func openJSON(data []byte) (*Replay, error) {
	var head struct {
		Game string `json:"game"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("decode replay.json: %w", err)
	}
	v, ok := viewers()[head.Game]
	if !ok || v.open == nil {
		return nil, fmt.Errorf("replay.json: unknown game %q", head.Game)
	}
	g, err := v.open(data)
	if err != nil {
		return nil, err
	}
	return &Replay{name: head.Game, g: g}, nil
}

// Game names the replay's rule set.
func (r *Replay) Game() string { return r.name }

// Count is the number of steps.
func (r *Replay) Count() int { return r.g.count() }

// Frame draws step i, clamped to the replay.
func (r *Replay) Frame(i int, o Options) (*Frame, error) {
	n := r.g.count()
	if n == 0 {
		return nil, ErrNoReplay
	}
	o.inProgress = r.inProgress
	if r.fsys != nil {
		o.fileLog = func(key string) (string, bool) {
			if !fs.ValidPath(key) || strings.Contains(key, "/") {
				return "", false
			}
			data, err := readCapped(r.fsys, path.Join(r.root, key, "log.txt"), maxReplayJSON)
			return string(data), err == nil
		}
	}
	f, err := r.g.frame(max(0, min(i, n-1)), o)
	if err != nil {
		return nil, err
	}
	for k := range f.Grids {
		f.Grids[k].describe()
	}
	f.Game = r.name
	return f, nil
}

// Scores is each seat's score over the steps, computed once.
func (r *Replay) Scores(o Options) []Series {
	r.once.Do(func() { r.series = r.g.scores(o) })
	return r.series
}

// readCapped reads a file up to max bytes; a larger one is an error.
func readCapped(fsys fs.FS, name string, max int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than the viewer reads (%d bytes)", name, max)
	}
	return data, nil
}

// readHead reads the first n bytes of a file, or all of a shorter one: a
// file the page shows only the start of is read no further, whatever its
// size.
func readHead(fsys fs.FS, name string, n int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return data, nil
}

// jsonFile is part of a replay.json shown as a raw file of its step.
func jsonFile(name string, v any) File {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return File{Name: name, Text: err.Error()}
	}
	return File{Name: name, Text: shownText(data)}
}

// shownText is a file as the page shows it: capped, with LF line ends.
func shownText(data []byte) string {
	if len(data) > maxShownText {
		data = append(data[:maxShownText:maxShownText], "\n…"...)
	}
	return strings.ReplaceAll(string(data), "\r\n", "\n")
}
