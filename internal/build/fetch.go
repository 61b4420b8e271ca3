package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/broadside/broadside/internal/sandbox"
)

// fetch is a dependency download: the one kind of build step with the
// network. It never runs in the bot's folder, where the bot's files could
// take part in it (a module shadowing the package manager, a tool's
// project configuration naming a program, a build extension). It runs in a
// fresh folder that holds copies of the tool's manifests and nothing else
// of the bot; what it downloaded is then moved into the bot's folder for
// the build, which runs without the network.
type fetch struct {
	// tool names the package manager in the build log.
	tool string
	// manifests are the file names copied from anywhere in the project
	// (hidden, dependency and output folders left out) into the fresh
	// folder, at the same relative paths. Only regular files are copied.
	manifests []string
	// stubs are files created empty in the fresh folder where the project
	// has them, beside a copied manifest: cargo wants a package's targets
	// to exist, not their contents.
	stubs []string
	// prepare, when set, writes the platform's own configuration into the
	// fresh folder before the download (Maven's settings).
	prepare func(root string) error
	// command returns the download command and its environment for the
	// fresh folder root.
	command func(root string) (args, env []string)
	// results are paths, relative to the fresh folder, moved into the
	// project after a successful download, replacing what the bot shipped
	// at those paths.
	results []string
}

// skippedDirs are the folders the manifest search does not enter: hidden
// ones (.git, .cargo, .mvn, the caches of earlier steps) and what tools
// write or vendor.
func skippedDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "target" || name == "vendor"
}

// walkManifests calls fn with the path, and the path relative to work, of
// every regular file named one of names in the project work and its
// folders, skippedDir's left out.
func walkManifests(work string, names []string, fn func(p, rel string) error) error {
	return filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != work && skippedDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !slices.Contains(names, d.Name()) {
			return nil
		}
		rel, err := filepath.Rel(work, p)
		if err != nil {
			return err
		}
		return fn(p, rel)
	})
}

// newFetchRoot makes the fresh folder of a download in parent and copies
// the fetch's manifests from work into it. It returns the folder and the
// relative paths copied.
func (f *fetch) newFetchRoot(parent, work string) (string, []string, error) {
	root, err := os.MkdirTemp(parent, "fetch-")
	if err != nil {
		return "", nil, fmt.Errorf("build: folder for the %s download: %w", f.tool, err)
	}
	copied, err := f.fill(root, work)
	if err != nil {
		os.RemoveAll(root)
		return "", nil, err
	}
	return root, copied, nil
}

// fill copies the manifests and creates the stubs.
func (f *fetch) fill(root, work string) ([]string, error) {
	var copied []string
	err := walkManifests(work, f.manifests, func(p, rel string) error {
		if err := copyFile(p, filepath.Join(root, rel)); err != nil {
			return err
		}
		copied = append(copied, filepath.ToSlash(rel))
		for _, s := range f.stubs {
			relStub := filepath.Join(filepath.Dir(rel), filepath.FromSlash(s))
			if st, err := os.Lstat(filepath.Join(work, relStub)); err == nil && st.Mode().IsRegular() {
				if err := writeEmpty(filepath.Join(root, relStub)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("build: copy the %s manifests: %w", f.tool, err)
	}
	sort.Strings(copied)
	if f.prepare != nil {
		if err := f.prepare(root); err != nil {
			return nil, fmt.Errorf("build: prepare the %s download: %w", f.tool, err)
		}
	}
	return copied, nil
}

// collect moves the download's results from root into work. What the bot
// shipped at those paths goes, whether or not the download made them
// (the tool, run in the bot's folder, would have replaced or pruned it).
func (f *fetch) collect(root, work string) error {
	for _, rel := range f.results {
		from, to := filepath.Join(root, rel), filepath.Join(work, rel)
		// RemoveAll removes a link itself, never what it points at.
		if err := os.RemoveAll(to); err != nil {
			return fmt.Errorf("build: replace %s: %w", rel, err)
		}
		if _, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		if err := moveTree(from, to); err != nil {
			return fmt.Errorf("build: move the downloaded %s into the bot: %w", rel, err)
		}
	}
	return nil
}

// copyFile copies the regular file src to dst, creating dst's folders.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func writeEmpty(p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, nil, 0o644)
}

// moveTree renames from to to; across file systems (a fresh folder in the
// system's temporary folder, a bot folder elsewhere) it copies instead.
func moveTree(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if err := os.Rename(from, to); err == nil {
		return nil
	}
	return copyTree(from, to)
}

// copyTree copies the folder or file from to to: folders, regular files
// with their permissions, links as they are.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case d.Type().IsRegular():
			if err := copyFile(p, dst); err != nil {
				return err
			}
			return os.Chmod(dst, info.Mode().Perm())
		}
		return nil
	})
}

// runFetch runs the download f of the project work (in the bot folder
// dir) in a fresh folder with the network, and on success moves its
// results into work. It returns the command it ran.
func (b *Builder) runFetch(ctx context.Context, dir, work string, f *fetch, log *strings.Builder, flush func()) ([]string, sandbox.Result, error) {
	parent := b.TempDir
	if parent == "" {
		parent = filepath.Dir(dir)
	}
	root, copied, err := f.newFetchRoot(parent, work)
	if err != nil {
		return []string{f.tool}, sandbox.Result{}, err
	}
	defer os.RemoveAll(root)
	args, env := f.command(root)
	fmt.Fprintf(log, "\n$ %s\n", strings.Join(args, " "))
	if len(copied) == 0 {
		copied = []string{"nothing"}
	}
	fmt.Fprintf(log, "(%s downloads with the network in a fresh folder holding copies of %s; nothing of the bot runs)\n",
		f.tool, strings.Join(copied, ", "))
	flush()
	// The operator's mirrors first: the step's own settings win.
	res, err := b.Runner.Run(ctx, sandbox.Cmd{
		Args:    args,
		Dir:     root,
		Env:     append(append([]string{}, b.Env...), env...),
		Mounts:  []sandbox.Mount{{Source: root, Writable: true}},
		Network: true,
		Limits:  b.Limits,
	})
	if b.inspectFetch != nil {
		b.inspectFetch(root)
	}
	if err != nil || failure(res) != "" {
		return args, res, err
	}
	return args, res, f.collect(root, work)
}
