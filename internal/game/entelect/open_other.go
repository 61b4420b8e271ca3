//go:build !unix

package entelect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// openNoFollow opens a bot-written file for reading; the caller refuses
// anything but a regular file.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !f.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	return os.Open(path)
}

// createFile writes data to a new file at path, replacing whatever was
// there without following it.
func createFile(path string, data []byte) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// rewriteFile writes data to the file at path: elsewhere than Unix, as a
// new file.
func rewriteFile(path string, data []byte) error { return createFile(path, data) }

// readBotFile reads a file a bot wrote without following a symbolic link
// or blocking on a FIFO, up to max bytes.
func readBotFile(path string, max int) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	// Sized by the file: one read for its bytes and one for the end, where
	// growing from io.ReadAll's 512 bytes reads a state.json in seven.
	var b bytes.Buffer
	b.Grow(int(min(fi.Size(), int64(max))) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(f, int64(max)+1)); err != nil {
		return nil, err
	}
	if b.Len() > max {
		return nil, errTooLarge
	}
	return b.Bytes(), nil
}
