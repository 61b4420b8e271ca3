//go:build !unix

package entelect

import (
	"errors"
	"io/fs"
	"os"
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
