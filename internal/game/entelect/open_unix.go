//go:build unix

package entelect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// readBotFile reads a file a bot wrote, up to limit bytes, without following
// a symbolic link or blocking on a FIFO. Raw system calls, as createFile
// writes: an *os.File registers with the runtime's poller (a call refused
// for a regular file) and reads once more to be told the end, where a
// buffer sized by the file reads it in one call.
func readBotFile(path string, limit int) ([]byte, error) {
	fd, err := openRead(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	// A byte past the size, or past limit, tells a file that grew since, or
	// one over the cap.
	buf := make([]byte, 0, min(max(st.Size, 0), int64(limit))+1)
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				return nil, errTooLarge
			}
			buf = slices.Grow(buf, min(max(len(buf), 512), limit+1-len(buf)))
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		buf = buf[:len(buf)+n]
		// A regular file reads short only at its end.
		if n == 0 || (len(buf) < cap(buf) && int64(len(buf)) >= st.Size) {
			break
		}
	}
	if len(buf) > limit {
		return nil, errTooLarge
	}
	return buf, nil
}

func openRead(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
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

// rewriteFile writes data to the file at path, over the one the engine
// wrote there the round before when it is still a regular file of its
// own (one link), else as a new file (createFile). Writing over a file's
// blocks costs a few microseconds on ext4, where creating the file, or
// truncating it, and removing it after the turn costs hundreds: the
// journal records every block and inode freed and taken.
func rewriteFile(path string, data []byte) error {
	fd, err := openExisting(path)
	if err != nil {
		return createFile(path, data)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Nlink != 1 {
		syscall.Close(fd)
		return createFile(path, data)
	}
	for off := 0; off < len(data); {
		n, err := syscall.Pwrite(fd, data[off:], int64(off))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return &fs.PathError{Op: "write", Path: path, Err: err}
		}
		off += n
	}
	if err := syscall.Ftruncate(fd, int64(len(data))); err != nil {
		syscall.Close(fd)
		return &fs.PathError{Op: "truncate", Path: path, Err: err}
	}
	if err := syscall.Close(fd); err != nil {
		return &fs.PathError{Op: "close", Path: path, Err: err}
	}
	return nil
}

// openExisting opens a file for writing where it is, without following a
// symbolic link or blocking on a FIFO.
func openExisting(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
