package botzip

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPack zips a starter bot as an upload that Inspect accepts, leaves
// hidden files and build leftovers out, and gives the same bytes twice.
func TestPack(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"bot.json":               `{"BotType": "Python3", "RunFile": "bot.py", "NickName": "Packed"}`,
		"bot.py":                 "print('hi')\n",
		".git/HEAD":              "ref",
		"__pycache__/bot.pyc":    "x",
		"lib/helper.py":          "pass\n",
		"node_modules/left/x.js": "x",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := Pack(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Pack(dir)
	if err != nil || !bytes.Equal(data, again) {
		t.Fatalf("a second Pack differs (%v)", err)
	}
	m, err := Inspect(bytes.NewReader(data), int64(len(data)), DefaultLimits())
	if err != nil {
		t.Fatalf("Inspect refuses the packed folder: %v", err)
	}
	if m.DisplayName() != "Packed" {
		t.Errorf("name %q", m.DisplayName())
	}
	names := entryNames(t, data)
	want := []string{"bot.json", "bot.py", "lib/helper.py"}
	if len(names) != len(want) {
		t.Fatalf("entries %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("entries %v, want %v", names, want)
		}
	}
}

func entryNames(t *testing.T, data []byte) []string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	return names
}

// TestWriteFolderKeepsTimes checks that WriteFolder without a fixed time
// keeps each file's own time and every file, hidden ones included.
func TestWriteFolderKeepsTimes(t *testing.T) {
	dir := t.TempDir()
	when := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	for _, name := range []string{"Phase 1 - Round 0/state.json", ".hidden"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, when, when); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := WriteFolder(&buf, dir, FolderOptions{}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 2 {
		t.Fatalf("entries %v, want 2", entryNames(t, buf.Bytes()))
	}
	for _, f := range zr.File {
		if !f.Modified.Equal(when) {
			t.Errorf("%s modified %v, want %v", f.Name, f.Modified, when)
		}
	}
}
