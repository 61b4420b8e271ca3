package jobs

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/broadside/broadside/internal/blob"
)

// storeReplay zips the replay folder (regular files only) into zipPath and
// stores it at key.
func storeReplay(ctx context.Context, b *blob.Bucket, dir, zipPath, key string) error {
	f, err := os.Create(zipPath)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
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
		w, err := zw.CreateHeader(&zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Deflate, Modified: info.ModTime()})
		if err != nil {
			return err
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(w, src)
		return err
	})
	if err != nil {
		return fmt.Errorf("replay: zip %s: %w", dir, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return blob.PutFile(ctx, b, key, zipPath, "application/zip")
}
