package game

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestZipFolder zips a replay folder: every regular file, by its path in
// the folder, with its contents and the time it was written.
func TestZipFolder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"Phase 1 - Round 0/engine.log": "round 0\n",
		"Phase 1 - Round 1/A/map.txt":  "map\n",
		"replay.json":                  "{}",
	}
	written := time.Date(2026, 11, 25, 9, 30, 0, 0, time.UTC)
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, written, written); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ZipFolder(&buf, dir); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != len(files) {
		t.Errorf("%d entries, want %d", len(zr.File), len(files))
	}
	for _, f := range zr.File {
		want, ok := files[f.Name]
		if !ok {
			t.Errorf("unexpected entry %q", f.Name)
			continue
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(r)
		r.Close()
		if string(got) != want {
			t.Errorf("%s holds %q, want %q", f.Name, got, want)
		}
		if !f.Modified.Equal(written) {
			t.Errorf("%s dated %v, want %v", f.Name, f.Modified, written)
		}
	}
}
