//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A Session's PerCommand mount is backed by an empty host folder (the
// stage) made a shared mount point: the sandbox gets a read-only bind of
// it, a slave of the host's, so a bind mount the worker makes under the
// stage during a command appears inside at once and disappears when the
// worker unmounts it. Making mount points needs root; elsewhere commands
// under a PerCommand mount run in a fresh sandbox.

// stage is the host side of one PerCommand mount.
type stage struct {
	target string // the path inside the sandbox
	dir    string // the host folder shown there
}

// newStages prepares a stage for each PerCommand mount. It returns the
// mounts the sandbox is started with (the stages in place of the
// PerCommand mounts) and the stages; with no stages (not root) the
// PerCommand mounts are left out.
func newStages(mounts []Mount) ([]Mount, []stage) {
	var out []Mount
	var stages []stage
	for _, m := range mounts {
		if !m.PerCommand {
			out = append(out, m)
			continue
		}
		target := m.Target
		if target == "" {
			target = m.Source
		}
		dir, err := makeStage()
		if err != nil {
			continue
		}
		stages = append(stages, stage{target: filepath.Clean(target), dir: dir})
		out = append(out, Mount{Source: dir, Target: target})
	}
	// The stage is read-only inside: the mount points of the session's
	// other mounts under it are made on the host.
	for _, m := range out {
		target := m.Target
		if target == "" {
			target = m.Source
		}
		for _, st := range stages {
			if rel, ok := below(st.target, target); ok {
				_ = os.MkdirAll(filepath.Join(st.dir, rel), 0o755)
			}
		}
	}
	return out, stages
}

// below returns path's place under dir, and whether it is strictly below.
func below(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, filepath.Clean(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// makeStage creates a private folder and mounts a small tmpfs on it, made a
// shared mount point. A tmpfs rather than the folder bound on itself: each
// command's mount point is made and removed in it, which on the host's
// file system (ext4 allocating and freeing an inode each time) costs the
// worker CPU on every turn. Its name carries the worker's pid, for
// removeStaleStages.
func makeStage() (string, error) {
	dir, err := os.MkdirTemp("", fmt.Sprintf("broadside-stage-%d-", os.Getpid()))
	if err != nil {
		return "", err
	}
	if err := unix.Mount("broadside-stage", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC,
		"mode=0755,size=64k,nr_inodes=4096"); err != nil {
		os.Remove(dir)
		return "", fmt.Errorf("mount a tmpfs on %s: %w", dir, err)
	}
	if err := unix.Mount("", dir, "", unix.MS_SHARED, ""); err != nil {
		_ = unix.Unmount(dir, unix.MNT_DETACH)
		os.Remove(dir)
		return "", fmt.Errorf("share %s: %w", dir, err)
	}
	return dir, nil
}

// remove unmounts the stage, with whatever is still mounted below it, and
// deletes its folder.
func (st stage) remove() {
	_ = unix.Unmount(st.dir, unix.MNT_DETACH)
	removeEmptyDirs(st.dir)
}

// removeEmptyDirs deletes dir and the folders below it, deepest first, but
// only empty ones: never RemoveAll, which would delete a bot's round folder
// through a bind mount that is still there.
func removeEmptyDirs(dir string) {
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i])
	}
}

// removeStaleStages unmounts and deletes the stages left by workers that
// died during a session.
func removeStaleStages() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "broadside-stage-*-*"))
	for _, d := range dirs {
		parts := strings.Split(filepath.Base(d), "-")
		pid, err := strconv.Atoi(parts[2])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			continue
		}
		stage{dir: d}.remove()
	}
}

// staged is one command mount placed on a stage.
type staged struct {
	mount Mount
	stage stage
	rel   string // the mount's path below the stage
	// top is rel's first folder when rel goes deeper and that folder was
	// made for this mount: renaming it moves the mount (moveKept).
	top string
	// source is the folder mounted: its path may show another since.
	source fileID
}

// place finds, for each of the command's mounts the session does not cover,
// the stage it falls under. ok is false when one falls under none.
func (s *Session) place(mounts []Mount) (placed []staged, ok bool) {
	for _, m := range mounts {
		if s.covers([]Mount{m}) {
			continue
		}
		target := m.Target
		if target == "" {
			target = m.Source
		}
		found := false
		for _, st := range s.stages {
			if rel, ok := below(st.target, target); ok {
				placed = append(placed, staged{mount: m, stage: st, rel: rel})
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return placed, true
}

// mountStaged bind-mounts the command's mounts onto their stages;
// unmountStaged undoes it. On error nothing stays mounted.
func mountStaged(placed []staged) error {
	for i := range placed {
		p := &placed[i]
		dst := filepath.Join(p.stage.dir, p.rel)
		if top, _, deeper := strings.Cut(p.rel, "/"); deeper {
			if _, err := os.Lstat(filepath.Join(p.stage.dir, top)); errors.Is(err, os.ErrNotExist) {
				p.top = top
			}
		}
		err := os.MkdirAll(dst, 0o755)
		if err == nil {
			err = unix.Mount(p.mount.Source, dst, "", unix.MS_BIND|unix.MS_REC, "")
		}
		if err == nil && !p.mount.Writable {
			err = unix.Mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")
		}
		if err == nil {
			p.source = idOf(dst)
		}
		if err != nil {
			unmountStaged(placed[:i+1])
			return fmt.Errorf("sandbox: show %s in the session: %w", p.mount.Source, err)
		}
	}
	return nil
}

// unmountStaged removes the bind mounts and the folders made for them.
func unmountStaged(placed []staged) {
	for _, p := range placed {
		dst := filepath.Join(p.stage.dir, p.rel)
		if err := unix.Unmount(dst, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
			continue
		}
		// Remove the folders made on the way, up to the stage itself.
		for d := dst; d != p.stage.dir && strings.HasPrefix(d, p.stage.dir+"/"); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
}

// moveKept shows the previous command's mount, still in place (kept), at
// this command's path (placed), when both are the one mount of their
// command and the same mount at another round's path, as a match's turn
// folder is from one turn to the next: renaming the round's folder on the
// stage moves the bind mount in it, in the sandbox too. An unmount and a
// mount at every turn cost the worker more (the unmount waits for the
// kernel's RCU grace period). false when it cannot: the caller then
// removes the kept mounts and mounts placed.
func moveKept(kept, placed []staged) bool {
	if len(kept) != 1 || len(placed) != 1 {
		return false
	}
	k, p := kept[0], &placed[0]
	if k.top == "" || k.stage.dir != p.stage.dir || k.mount.Source != p.mount.Source || k.mount.Writable != p.mount.Writable ||
		k.source == (fileID{}) || idOf(p.mount.Source) != k.source {
		return false
	}
	if k.rel == p.rel {
		p.top, p.source = k.top, k.source
		return true
	}
	top, rest, deeper := strings.Cut(p.rel, "/")
	_, keptRest, _ := strings.Cut(k.rel, "/")
	if !deeper || rest != keptRest {
		return false
	}
	// Never over a folder already there, which may hold another mount.
	if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(k.stage.dir, k.top),
		unix.AT_FDCWD, filepath.Join(p.stage.dir, top), unix.RENAME_NOREPLACE); err != nil {
		return false
	}
	p.top, p.source = top, k.source
	return true
}
