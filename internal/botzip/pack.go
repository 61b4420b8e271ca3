package botzip

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// packEpoch is the time stamped on every packed file, so the same folder
// always gives the same zip (and the same checksum).
var packEpoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// Pack zips a bot folder as an upload: the folder's files at the root, with sorted names and fixed times (the same folder always gives the same
// zip), leaving out hidden files and build leftovers. The portal seeds its
// starter bots with it and the battleship command submits with it.
func Pack(root string) ([]byte, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		// target/ is where local Java and Rust builds write; the worker builds again.
		if path != root && (strings.HasPrefix(name, ".") || name == "__pycache__" || name == "node_modules" || (d.IsDir() && name == "target")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("zip %s: %w", root, err)
	}
	sort.Strings(files)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, path := range files {
		if err := addFile(zw, root, path); err != nil {
			return nil, fmt.Errorf("zip %s: %w", root, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("zip %s: %w", root, err)
	}
	return buf.Bytes(), nil
}

func addFile(zw *zip.Writer, root, path string) error {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	h := &zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Deflate, Modified: packEpoch}
	h.SetMode(info.Mode().Perm()) // keep run.sh executable
	w, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return errors.Join(err, f.Close())
	}
	return nil
}
