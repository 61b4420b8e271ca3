package board

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"testing/fstest"

	ruleset "github.com/broadside/broadside/internal/game"
)

// Live assembles the rounds of a running match, as the worker publishes
// them, into a replay the viewer opens: Entelect round folders file by
// file, and the other rule sets' replay.json from its first state and the
// patches after it. It knows no rule set by name.
type Live struct {
	fsys fstest.MapFS
	// doc is the replay.json being patched, decoded; nil until one came.
	doc any
}

// NewLive returns an empty live replay.
func NewLive() *Live { return &Live{fsys: fstest.MapFS{}} }

// Add adds one published round: its folder name and its files.
func (l *Live) Add(name string, files map[string]string) error {
	for file, text := range files {
		p := path.Join(name, file)
		switch file {
		case ruleset.LiveReplayFile:
			doc, err := decodeNumbers([]byte(text))
			if err != nil {
				return fmt.Errorf("live %s: %w", p, err)
			}
			l.doc = doc
		case ruleset.LivePatchFile:
			if l.doc == nil {
				return fmt.Errorf("live %s: a patch before the replay", p)
			}
			var ops []ruleset.PatchOp
			d := json.NewDecoder(bytes.NewReader([]byte(text)))
			d.UseNumber()
			if err := d.Decode(&ops); err != nil {
				return fmt.Errorf("live %s: %w", p, err)
			}
			doc, err := ruleset.ApplyPatch(l.doc, ops)
			if err != nil {
				return fmt.Errorf("live %s: %w", p, err)
			}
			l.doc = doc
		default:
			l.fsys[p] = &fstest.MapFile{Data: []byte(text)}
			continue
		}
		// The patched document is written out once per round added.
		data, err := json.Marshal(l.doc)
		if err != nil {
			return fmt.Errorf("live %s: %w", p, err)
		}
		l.fsys[path.Join(name, ruleset.LiveReplayFile)] = &fstest.MapFile{Data: data}
	}
	return nil
}

// FS is the replay assembled so far.
func (l *Live) FS() fs.FS { return l.fsys }

// Open opens the replay assembled so far. Its last step is where the match
// stands, not its end: it names no winner and no totals yet.
func (l *Live) Open() (*Replay, error) {
	r, err := Open(l.fsys)
	if err != nil {
		return nil, err
	}
	r.inProgress = true
	return r, nil
}

func decodeNumbers(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
