package game

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
)

// Files a replay.json rule set publishes through Options.Progress. The
// first step holds the replay as it stands (LiveReplayFile); each later
// step holds only what changed (LivePatchFile), as JSON Patch (RFC 6902)
// "add" and "replace" operations on it, so a long match costs its
// watchers the size of its replay once, not once per step.
const (
	LiveReplayFile = "replay.json"
	LivePatchFile  = "replay.patch.json"
)

// PatchOp is one JSON Patch operation: "add" (a path ending in "/-"
// appends to an array) or "replace".
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// Append is the operation adding v at the end of the array at path.
func Append(path string, v any) PatchOp { return PatchOp{Op: "add", Path: path + "/-", Value: v} }

// Replace is the operation setting the member at path to v.
func Replace(path string, v any) PatchOp { return PatchOp{Op: "replace", Path: path, Value: v} }

// LiveReplay hands a replay.json rule set's steps to Options.Progress:
// Start once with the replay so far, then Patch after each step. Without
// Progress it does nothing, so a rule set calls it unconditionally.
type LiveReplay struct {
	progress func(context.Context, RoundProgress)
	seq      int
}

// NewLiveReplay returns the publisher of opts' match.
func NewLiveReplay(opts Options) *LiveReplay { return &LiveReplay{progress: opts.Progress} }

// Start publishes the replay as it stands.
func (l *LiveReplay) Start(ctx context.Context, replay any) {
	l.publish(ctx, LiveReplayFile, replay)
}

// Patch publishes one step's changes; it does nothing before Start.
func (l *LiveReplay) Patch(ctx context.Context, ops ...PatchOp) {
	if l.seq == 0 || len(ops) == 0 {
		return
	}
	l.publish(ctx, LivePatchFile, ops)
}

func (l *LiveReplay) publish(ctx context.Context, file string, v any) {
	if l.progress == nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		// The replay's own types always encode; a failure here would
		// only leave the live view behind, never the match.
		return
	}
	l.progress(ctx, RoundProgress{Seq: l.seq, Name: "", Files: map[string]string{file: string(data)}})
	l.seq++
}

// ApplyPatch applies JSON Patch "add" and "replace" operations to a
// document decoded with encoding/json (maps, slices, numbers), returning
// the new document. An "add" to the end of a null member makes it an
// array, as rule sets encode an empty list as null.
func ApplyPatch(doc any, ops []PatchOp) (any, error) {
	for _, op := range ops {
		if op.Op != "add" && op.Op != "replace" {
			return nil, &PatchError{op.Path, "unsupported operation " + strconv.Quote(op.Op)}
		}
		var err error
		if doc, err = applyAt(doc, splitPointer(op.Path), op); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// PatchError says which operation of a patch could not be applied.
type PatchError struct{ Path, Reason string }

func (e *PatchError) Error() string { return "patch " + e.Path + ": " + e.Reason }

func splitPointer(p string) []string {
	if p == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts
}

// applyAt applies op at the pointer rest below node and returns the node.
func applyAt(node any, rest []string, op PatchOp) (any, error) {
	if len(rest) == 0 {
		return op.Value, nil
	}
	key, last := rest[0], len(rest) == 1
	switch n := node.(type) {
	case map[string]any:
		if last {
			if op.Op == "replace" {
				if _, ok := n[key]; !ok {
					return nil, &PatchError{op.Path, "no member " + strconv.Quote(key)}
				}
			}
			n[key] = op.Value
			return n, nil
		}
		child, ok := n[key]
		if !ok {
			return nil, &PatchError{op.Path, "no member " + strconv.Quote(key)}
		}
		v, err := applyAt(child, rest[1:], op)
		if err != nil {
			return nil, err
		}
		n[key] = v
		return n, nil
	case []any:
		if last && key == "-" && op.Op == "add" {
			return append(n, op.Value), nil
		}
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(n) {
			return nil, &PatchError{op.Path, "no element " + strconv.Quote(key)}
		}
		if last {
			n[i] = op.Value
			return n, nil
		}
		v, err := applyAt(n[i], rest[1:], op)
		if err != nil {
			return nil, err
		}
		n[i] = v
		return n, nil
	case nil:
		if last && key == "-" && op.Op == "add" {
			return []any{op.Value}, nil
		}
	}
	return nil, &PatchError{op.Path, "no container at " + strconv.Quote(key)}
}
