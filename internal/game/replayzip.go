package game

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ZipFolder writes the regular files of a replay folder to w as a zip
// archive, for Options.ReplayZip: rule sets whose replay is a folder's
// few files written at the end zip it this way.
func ZipFolder(w io.Writer, dir string) error {
	zw := zip.NewWriter(w)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		// The file's own time, as the engine wrote it: without one, zip
		// tools show the entries as written in 1980.
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Deflate, Modified: info.ModTime()})
		if err != nil {
			return err
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(fw, src)
		return err
	})
	if err != nil {
		return fmt.Errorf("zip replay folder %s: %w", dir, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("zip replay folder %s: %w", dir, err)
	}
	return nil
}
