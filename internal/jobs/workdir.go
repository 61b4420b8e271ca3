package jobs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// workDirPrefix names the per-process folders under WORK_DIR.
const workDirPrefix = "worker-"

// workDir is one worker process's own folder under WORK_DIR. It holds a
// lock on a file inside for as long as the process lives, so the kernel
// releases it when the process dies, however it dies; a later worker on
// the same machine then knows the folder is abandoned.
type workDir struct {
	path string
	lock *os.File
}

// claimWorkDir creates this process's folder under root, locks it, and
// removes the folders that dead workers left behind (a worker killed in
// the middle of a match leaves its bots' copies and a half-written replay).
// It returns the folders it removed.
func claimWorkDir(root, workerID string) (*workDir, []string, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, nil, fmt.Errorf("jobs: work folder: %w", err)
	}
	swept, err := sweepWorkDirs(root)
	if err != nil {
		return nil, nil, err
	}
	// The folder is made and locked under a name sweepers ignore, then
	// renamed: a sweeper never sees it unlocked. The lock stays with the
	// open file through the rename.
	tmp, err := os.MkdirTemp(root, ".claim-")
	if err != nil {
		return nil, nil, fmt.Errorf("jobs: work folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(tmp, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("jobs: work folder lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("jobs: work folder lock: %w", err)
	}
	dir := filepath.Join(root, workDirPrefix+safeName(workerID))
	if err := os.Rename(tmp, dir); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("jobs: work folder: %w", err)
	}
	return &workDir{path: dir, lock: f}, swept, nil
}

// release removes the folder and drops its lock, when the worker stops.
func (d *workDir) release() error {
	err := os.RemoveAll(d.path)
	return errors.Join(err, d.lock.Close())
}

// sweepWorkDirs removes the worker folders under root whose lock nobody
// holds: their process is gone.
func sweepWorkDirs(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("jobs: sweep work folders: %w", err)
	}
	var swept []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), workDirPrefix) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		abandoned, err := lockFree(filepath.Join(dir, ".lock"))
		if err != nil || !abandoned {
			continue // in use, or not ours to judge
		}
		if err := os.RemoveAll(dir); err != nil {
			return swept, fmt.Errorf("jobs: sweep work folder %s: %w", dir, err)
		}
		swept = append(swept, dir)
	}
	return swept, nil
}

// lockFree reports whether nobody holds the lock file's lock. Folders are
// renamed into place already locked, so one without a lock file is not a
// worker's.
func lockFree(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return false, nil
	}
	// Held only while deciding: closing f drops it.
	return true, nil
}

// safeName keeps a worker id usable as one folder name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			return r
		}
		return '_'
	}, s)
}
