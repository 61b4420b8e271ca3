//go:build unix

package entelect

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens a bot-written file for reading: a symbolic link is
// refused (it could point at a host file) and a FIFO does not block.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// createFile writes data to a new file at path: created exclusively, so a
// symbolic link a bot left there is never followed but removed, and
// written with raw system calls (an *os.File also registers with the
// runtime's poller, two more calls for a file written once).
func createFile(path string, data []byte) error {
	fd, err := openExclusive(path)
	if errors.Is(err, syscall.EEXIST) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		fd, err = openExclusive(path)
	}
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return &fs.PathError{Op: "write", Path: path, Err: err}
		}
		data = data[n:]
	}
	if err := syscall.Close(fd); err != nil {
		return &fs.PathError{Op: "close", Path: path, Err: err}
	}
	return nil
}

func openExclusive(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
