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

// Pack zips a bot folder as an upload: the folder's files at the root,
// with sorted names and fixed times (the same folder always gives the same
// zip), leaving out hidden files and build leftovers. The portal seeds its
// starter bots with it and the battleship command submits with it.
func Pack(root string) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteFolder(&buf, root, FolderOptions{Skip: leftover, Modified: packEpoch}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// leftover says whether a file or folder of a bot is left out of its
// upload: hidden ones, and what local runs and builds leave behind.
func leftover(d fs.DirEntry) bool {
	name := d.Name()
	// target/ is where local Java and Rust builds write; the worker builds again.
	return strings.HasPrefix(name, ".") || name == "__pycache__" || name == "node_modules" || (d.IsDir() && name == "target")
}

// FolderOptions say how WriteFolder zips a folder.
type FolderOptions struct {
	// Skip, when set, leaves out a file or folder (with all it holds)
	// below the root.
	Skip func(d fs.DirEntry) bool
	// Modified, when set, is the time of every file, so that the same
	// folder always gives the same zip; zero keeps each file's own time.
	Modified time.Time
}

// WriteFolder writes a zip of the regular files under root to w: names
// relative to root, with forward slashes, sorted, each file's permission
// bits kept (a run.sh stays executable).
func WriteFolder(w io.Writer, root string, o FolderOptions) error {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != root && o.Skip != nil && o.Skip(d) {
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
		return fmt.Errorf("zip %s: %w", root, err)
	}
	sort.Strings(files)
	zw := zip.NewWriter(w)
	for _, path := range files {
		if err := addFile(zw, root, path, o.Modified); err != nil {
			return fmt.Errorf("zip %s: %w", root, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("zip %s: %w", root, err)
	}
	return nil
}

func addFile(zw *zip.Writer, root, path string, modified time.Time) error {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if modified.IsZero() {
		modified = info.ModTime()
	}
	h := &zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Deflate, Modified: modified}
	h.SetMode(info.Mode().Perm())
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
