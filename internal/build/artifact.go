package build

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// MaxArtifactBytes bounds the unpacked size of a built folder.
const MaxArtifactBytes = 1 << 30

// Pack writes the folder dir as a gzipped tar to w: regular files with
// their executable bit, folders, and symbolic links that stay inside the
// folder (node_modules/.bin holds such links). Other links and special
// files are left out.
func Pack(dir string, w io.Writer) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		name := filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755})
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil || !linkInside(name, target) {
				return nil
			}
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: target, Mode: 0o777})
		case !d.Type().IsRegular():
			return nil
		}
		mode := int64(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: info.Size()}); err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.CopyN(tw, f, info.Size())
		return err
	})
	if err != nil {
		return fmt.Errorf("build: pack %s: %w", dir, err)
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("build: pack %s: %w", dir, err)
	}
	return gz.Close()
}

// linkInside reports whether a link at name (slash path relative to the
// root) pointing at target resolves inside the root.
func linkInside(name, target string) bool {
	if target == "" || path.IsAbs(target) || filepath.IsAbs(target) {
		return false
	}
	resolved := path.Join(path.Dir(name), filepath.ToSlash(target))
	return resolved != ".." && !strings.HasPrefix(resolved, "../")
}

// Unpack extracts a Pack archive into dir, which must not exist. Entries
// leaving the folder, links pointing outside it and special files are
// refused; on error dir is removed.
func Unpack(r io.Reader, dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("build: unpack: %w", err)
	}
	if err := unpack(r, dir); err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("build: unpack into %s: %w", dir, err)
	}
	return nil
}

func unpack(r io.Reader, dir string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if name == "." || path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("entry %q leaves the folder", h.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		// Parents are created by us or came from earlier entries; a link
		// among them would redirect the write, so refuse that.
		if err := noLinkParents(dir, name); err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if !linkInside(name, h.Linkname) {
				return fmt.Errorf("link %s points outside the folder", name)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		case tar.TypeReg:
			total += h.Size
			if total > MaxArtifactBytes {
				return fmt.Errorf("artifact larger than %d bytes", int64(MaxArtifactBytes))
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
			if err != nil {
				return err
			}
			if _, err := io.CopyN(f, tr, h.Size); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		default:
			return fmt.Errorf("entry %s has unsupported type %c", name, h.Typeflag)
		}
	}
}

func noLinkParents(dir, name string) error {
	p := dir
	parts := strings.Split(name, "/")
	for _, part := range parts[:len(parts)-1] {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("entry %s is under a link", name)
		}
	}
	return nil
}
