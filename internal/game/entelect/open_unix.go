//go:build unix

package entelect

import (
	"os"
	"syscall"
)

// openNoFollow opens a bot-written file for reading: a symbolic link is
// refused (it could point at a host file) and a FIFO does not block.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
