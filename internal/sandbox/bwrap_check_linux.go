//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The checks a command passes before bubblewrap starts it: its program,
// working folder and paths must be visible inside the sandbox.

// checked is c with absolute paths and the interpreters it may start
// shown (hostRuntimes), once its program and working directory are known
// to be visible inside the sandbox.
func (b *Bwrap) checked(c Cmd) (Cmd, error) {
	c, err := absolutePaths(c)
	if err != nil {
		return c, err
	}
	if extra := b.runtimes.mounts(c.Path, c.Args[0]); len(extra) > 0 {
		c.Mounts = append(append([]Mount{}, c.Mounts...), extra...)
	}
	if err := b.checkProgram(c); err != nil {
		return c, err
	}
	return c, b.checkDir(c)
}

// checkProgram reports a program that cannot exist inside the sandbox, so a
// missing program is an error from Run as with Host, not a failed turn;
// and a program that exists here but would not be visible inside (each
// link on its way included), with an error wrapping command.ErrPlatform.
func (b *Bwrap) checkProgram(c Cmd) error {
	prog := c.Args[0]
	if !strings.Contains(prog, "/") {
		for _, dir := range filepath.SplitList(searchPath(c, sandboxPath)) {
			p := filepath.Join(dir, prog)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return b.checkVisible(p, c.Mounts)
			}
		}
		return fmt.Errorf("sandbox: %s: %w", prog, exec.ErrNotFound)
	}
	if !filepath.IsAbs(prog) {
		if c.Dir == "" {
			return fmt.Errorf("sandbox: relative program %s without Dir", prog)
		}
		prog = filepath.Join(c.Dir, prog)
	}
	fi, err := os.Stat(prog)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if fi.IsDir() {
		return fmt.Errorf("sandbox: %s is a directory", prog)
	}
	return b.checkVisible(prog, c.Mounts)
}

// checkVisible reports a program that the sandbox with mounts would not
// show, or one of whose links leads out of what it shows.
func (b *Bwrap) checkVisible(prog string, mounts []Mount) error {
	for _, p := range linkChain(prog) {
		if !b.alwaysVisible(p) && !underMount(p, mounts) {
			return notVisibleError(prog, p)
		}
	}
	return nil
}

// alwaysVisible reports whether every sandbox of b shows the host path p:
// the system's folders, the files of /etc shown (the alternatives links
// most interpreters lead through) and the runtimes given read-only.
func (b *Bwrap) alwaysVisible(p string) bool {
	for _, top := range []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if p == top || strings.HasPrefix(p, top+"/") {
			return true
		}
	}
	for _, list := range [][]string{b.readOnly, etcFiles, interpreterEtcFiles()} {
		for _, ro := range list {
			if p == ro || strings.HasPrefix(p, ro+"/") {
				return true
			}
		}
	}
	return false
}

// absolutePaths makes the command's relative paths (folder, mounts, a
// program named by a relative path) absolute from the worker's working
// directory: inside the sandbox, the working directory is not the worker's.
func absolutePaths(c Cmd) (Cmd, error) {
	abs := func(p string) (string, error) {
		if p == "" || filepath.IsAbs(p) {
			return p, nil
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("sandbox: %w", err)
		}
		return a, nil
	}
	var err error
	if c.Dir, err = abs(c.Dir); err != nil {
		return c, err
	}
	mounts := make([]Mount, len(c.Mounts))
	for i, m := range c.Mounts {
		if m.Source, err = abs(m.Source); err != nil {
			return c, err
		}
		if m.Target, err = abs(m.Target); err != nil {
			return c, err
		}
		mounts[i] = m
	}
	c.Mounts = mounts
	if strings.Contains(c.Args[0], "/") && !filepath.IsAbs(c.Args[0]) {
		args := append([]string{}, c.Args...)
		base := c.Dir
		if base == "" {
			base, _ = os.Getwd()
		}
		args[0] = filepath.Join(base, args[0])
		c.Args = args
	}
	return c, nil
}

// checkDir reports a working directory the command would not see.
func (b *Bwrap) checkDir(c Cmd) error {
	if c.Dir == "" {
		return nil
	}
	dir := filepath.Clean(c.Dir)
	visible := append([]Mount{{Source: "/tmp"}, {Source: "/usr"}}, c.Mounts...)
	for _, p := range b.readOnly {
		visible = append(visible, Mount{Source: p})
	}
	if underMount(dir, visible) {
		return nil
	}
	return fmt.Errorf("sandbox: working directory %s is not inside a mount", c.Dir)
}

func underMount(dir string, mounts []Mount) bool {
	for _, m := range mounts {
		t := m.Target
		if t == "" {
			t = m.Source
		}
		t = filepath.Clean(t)
		if dir == t || strings.HasPrefix(dir, t+"/") {
			return true
		}
	}
	return false
}
