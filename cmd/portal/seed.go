package main

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/botupload"
)

// houseUser owns the starter bots; it cannot log in.
const houseUser = "house"

// seedHouseBots uploads each starter bot folder under dir as a house bot,
// through the same checks as a user's upload. A folder whose zip is byte
// for byte its newest version's is left alone, so running it again is safe.
func seedHouseBots(ctx context.Context, cfg Config, logger *slog.Logger, dir string, out io.Writer) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read starter bots: %w", err)
	}
	m := NewMain(cfg, logger)
	defer m.Close()
	if err := m.open(ctx); err != nil {
		return err
	}
	house, err := m.store.UserEnsure(ctx, houseUser)
	if err != nil {
		return err
	}
	var failed []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		data, err := zipFolder(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		res, err := m.uploads.Save(ctx, botupload.Upload{
			OwnerID: house.ID, Name: e.Name(), Zip: bytes.NewReader(data), Size: int64(len(data)),
			House: true, SkipUnchanged: true,
		})
		if err != nil {
			// One broken starter must not keep the others off the ladder.
			fmt.Fprintf(out, "%s: not seeded: %v\n", e.Name(), err)
			failed = append(failed, e.Name())
			continue
		}
		if res.Unchanged {
			fmt.Fprintf(out, "%s: unchanged (bot %d)\n", e.Name(), res.BotID)
		} else {
			fmt.Fprintf(out, "%s: bot %d version %d, build queued\n", e.Name(), res.BotID, res.Number)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("starter bots not seeded: %s", strings.Join(failed, ", "))
	}
	return nil
}

// zipEpoch is the time stamped on every seeded file, so the same folder
// always gives the same zip (and the same checksum).
var zipEpoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// zipFolder zips a bot folder with sorted names and fixed times, leaving
// out hidden files and build leftovers.
func zipFolder(root string) ([]byte, error) {
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
	h := &zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Deflate, Modified: zipEpoch}
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
