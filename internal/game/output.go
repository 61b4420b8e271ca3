package game

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PrepareReplayDir creates a match's replay folder (when one is asked for)
// and checks that it is writable, so a match fails before any bot runs
// rather than after it was played.
func PrepareReplayDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create replay folder: %w", err)
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return fmt.Errorf("replay folder not writable: %w", err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// WriteReplayJSON writes v as indented JSON to dir/name, whole or not at
// all (a temporary file renamed into place). An empty dir writes nothing.
func WriteReplayJSON(dir, name string, v any) error {
	if dir == "" {
		return nil
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode replay: %w", err)
	}
	tmp := filepath.Join(dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write replay: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("write replay: %w", err)
	}
	return nil
}

// BotLog is a bot's own log of one match (PlayerSummary.Log), cut at a
// size so a bot printing without end cannot exhaust the engine's memory.
// The zero value is not usable: use NewBotLog.
type BotLog struct {
	b     strings.Builder
	limit int
	full  bool
}

// NewBotLog returns a log that keeps at most limit bytes.
func NewBotLog(limit int) *BotLog {
	return &BotLog{limit: limit}
}

// Printf appends to the log until it is full, then notes the cut once.
func (l *BotLog) Printf(format string, args ...any) {
	if l.full {
		return
	}
	s := fmt.Sprintf(format, args...)
	if l.b.Len()+len(s) > l.limit {
		s = s[:max(0, l.limit-l.b.Len())] + "\n[log truncated]\n"
		l.full = true
	}
	l.b.WriteString(s)
}

// String returns the log.
func (l *BotLog) String() string { return l.b.String() }
