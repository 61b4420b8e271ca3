//go:build !unix

package entelect

import "os"

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
