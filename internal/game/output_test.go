package game

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBotLogCaps(t *testing.T) {
	l := NewBotLog(10)
	l.Printf("%s", "12345")
	l.Printf("%s", "67890abc")
	l.Printf("never kept")
	if got, want := l.String(), "1234567890\n[log truncated]\n"; got != want {
		t.Errorf("log = %q, want %q", got, want)
	}
}

func TestWriteReplayJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := PrepareReplayDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := WriteReplayJSON(dir, "replay.json", map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "replay.json"))
	if err != nil || !strings.Contains(string(data), `"x": 1`) {
		t.Fatalf("replay = %q, %v", data, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d files, want only replay.json", len(entries))
	}
	if err := WriteReplayJSON(dir, "bad.json", func() {}); err == nil {
		t.Error("unencodable value: want an error")
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.json")); !os.IsNotExist(err) {
		t.Error("a failed write left a file")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := PrepareReplayDir(filepath.Join(file, "x")); err == nil {
		t.Error("folder under a file: want an error")
	}
}
