package botzip

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/broadside/broadside/internal/botmeta"
)

// Extract checks the zip as Inspect does and unpacks it into dir, which
// must not exist yet. Files keep their executable bit; nothing else of the
// zip's modes or owners is kept. On any error dir is removed: a folder is
// either complete or absent.
func Extract(r io.ReaderAt, size int64, dir string, lim Limits) (botmeta.Manifest, error) {
	c, err := check(r, size, lim)
	if err != nil {
		return botmeta.Manifest{}, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return botmeta.Manifest{}, fmt.Errorf("botzip: extract: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return botmeta.Manifest{}, fmt.Errorf("botzip: extract: %w", err)
	}
	if err := extract(c.entries, dir); err != nil {
		os.RemoveAll(dir)
		return botmeta.Manifest{}, fmt.Errorf("botzip: extract into %s: %w", dir, err)
	}
	return c.manifest, nil
}

func extract(entries []entry, dir string) error {
	for _, e := range entries {
		// Names were cleaned by check: relative, no "..", forward slashes.
		target := filepath.Join(dir, filepath.FromSlash(e.name))
		if e.dir {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := writeFile(e, target); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
	}
	return nil
}

func writeFile(e entry, target string) error {
	perm := os.FileMode(0o644)
	if e.f.Mode()&0o111 != 0 {
		perm = 0o755
	}
	rc, err := e.f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	// O_EXCL: never write through something already there.
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, io.LimitReader(rc, int64(e.f.UncompressedSize64))); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
