// Package botzip checks and unpacks uploaded bot zips. Inspect refuses
// anything unsafe or unusable with a message the uploader can act on, before
// anything is stored; Extract unpacks a checked zip into a new folder.
package botzip

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/bytesize"
)

// Limits bound what an upload may hold.
type Limits struct {
	// MaxZipBytes bounds the zip itself.
	MaxZipBytes int64
	// MaxUnpackedBytes bounds the total size of the unpacked files.
	MaxUnpackedBytes int64
	// MaxFiles bounds the number of entries.
	MaxFiles int
	// MaxRatio bounds one file's unpacked size over its packed size, above
	// MinRatioCheckBytes: a zip bomb's ratio runs to thousands.
	MaxRatio           int64
	MinRatioCheckBytes int64
}

// DefaultLimits fit a real bot with its libraries (a Java jar, node_modules)
// with room to spare.
func DefaultLimits() Limits {
	return Limits{
		MaxZipBytes:        50 << 20,
		MaxUnpackedBytes:   250 << 20,
		MaxFiles:           20000,
		MaxRatio:           200,
		MinRatioCheckBytes: 1 << 20,
	}
}

// Error is a refusal of an upload; its message is safe to show.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func refuse(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// entry is a checked file or folder of the zip, its name cleaned and
// relative to the bot folder.
type entry struct {
	f    *zip.File
	name string
	dir  bool
}

// checked is a zip that passed every check.
type checked struct {
	entries  []entry
	manifest botmeta.Manifest
}

// Inspect checks an uploaded zip and returns its bot's manifest. It reads
// every file once (so a corrupt or lying zip is refused now, not at build
// time) and refuses: a file that is not a zip, one over the limits, an
// encrypted entry, paths that leave the folder (absolute, ../), links and
// other special files, duplicate names, and a missing or invalid manifest
// (bot.json, or entry.zon / run.sh for the games that use them) at the
// root. A zip holding a single folder is read as that folder's contents,
// as zipping a bot's folder gives.
func Inspect(r io.ReaderAt, size int64, lim Limits) (botmeta.Manifest, error) {
	c, err := check(r, size, lim)
	if err != nil {
		return botmeta.Manifest{}, err
	}
	return c.manifest, nil
}

// Describe checks an uploaded zip as Inspect does and also names the
// bot's language: its BotType, or for an Executable the language its
// program is written in (from the program's #! line or file name).
func Describe(r io.ReaderAt, size int64, lim Limits) (botmeta.Manifest, string, error) {
	c, err := check(r, size, lim)
	if err != nil {
		return botmeta.Manifest{}, "", err
	}
	if c.manifest.BotType != botmeta.Executable {
		return c.manifest, c.manifest.BotType.String(), nil
	}
	var head []byte
	for _, e := range c.entries {
		if e.name != c.manifest.RunFile || e.dir {
			continue
		}
		if rc, err := e.f.Open(); err == nil {
			head, _ = io.ReadAll(io.LimitReader(rc, 256))
			rc.Close()
		}
	}
	return c.manifest, botmeta.ProgramLanguage(c.manifest.RunFile, head), nil
}

func check(r io.ReaderAt, size int64, lim Limits) (*checked, error) {
	if size > lim.MaxZipBytes {
		return nil, refuse("The zip is %s; the limit is %s.", bytesize.Format(size), bytesize.Format(lim.MaxZipBytes))
	}
	if size == 0 {
		return nil, refuse("The file is empty.")
	}
	zr, err := zip.NewReader(r, size)
	if errors.Is(err, zip.ErrFormat) {
		// archive/zip's own words ("zip: not a valid zip file") would say it twice.
		return nil, refuse("The file is not a zip archive.")
	} else if err != nil {
		return nil, refuse("The file cannot be read as a zip (%v).", err)
	}
	if len(zr.File) > lim.MaxFiles {
		return nil, refuse("The zip holds %d entries; the limit is %d.", len(zr.File), lim.MaxFiles)
	}
	if len(zr.File) == 0 {
		return nil, refuse("The zip is empty.")
	}
	entries := make([]entry, 0, len(zr.File))
	seen := make(map[string]bool, len(zr.File))
	var total uint64
	for _, f := range zr.File {
		name, err := cleanName(f.Name)
		if err != nil {
			return nil, err
		}
		mode := f.Mode()
		dir := mode.IsDir() || strings.HasSuffix(f.Name, "/")
		switch {
		case mode&fs.ModeSymlink != 0:
			return nil, refuse("%s is a symbolic link; links are not allowed, put the file itself in the zip.", f.Name)
		case !dir && !mode.IsRegular():
			return nil, refuse("%s is not a regular file (%s).", f.Name, mode.Type())
		case f.Flags&0x1 != 0:
			return nil, refuse("%s is encrypted; upload a zip without a password.", f.Name)
		case f.Method != zip.Store && f.Method != zip.Deflate:
			return nil, refuse("%s uses an unsupported compression method (%d); use deflate.", f.Name, f.Method)
		}
		if name == "" {
			continue // the root folder itself
		}
		if seen[name] {
			return nil, refuse("%s appears twice in the zip.", name)
		}
		seen[name] = true
		if !dir {
			total += f.UncompressedSize64
			if total > uint64(lim.MaxUnpackedBytes) {
				return nil, refuse("The unpacked files exceed %s.", bytesize.Format(lim.MaxUnpackedBytes))
			}
			if f.UncompressedSize64 > uint64(lim.MinRatioCheckBytes) &&
				f.UncompressedSize64 > f.CompressedSize64*uint64(lim.MaxRatio) {
				return nil, refuse("%s unpacks to %s from %s: that looks like a zip bomb.",
					name, bytesize.Format(int64(f.UncompressedSize64)), bytesize.Format(int64(f.CompressedSize64)))
			}
		}
		entries = append(entries, entry{f: f, name: name, dir: dir})
	}
	entries = stripSingleFolder(entries)
	files := make(map[string]bool, len(entries))
	for _, e := range entries {
		if !e.dir {
			files[e.name] = true
		}
	}
	for _, e := range entries {
		// A file must not also be a folder ("a" and "a/b").
		for p := path.Dir(e.name); p != "."; p = path.Dir(p) {
			if files[p] {
				return nil, refuse("%s is both a file and a folder in the zip.", p)
			}
		}
	}
	if err := verify(entries); err != nil {
		return nil, err
	}
	m, err := manifest(entries)
	if err != nil {
		return nil, err
	}
	return &checked{entries: entries, manifest: m}, nil
}

// cleanName validates an entry name and returns it relative to the root,
// with forward slashes.
func cleanName(raw string) (string, error) {
	// Control characters (C0, DEL, C1) in a file name rewrite terminals
	// and logs that show it, and no bot needs them.
	if !utf8.ValidString(raw) || strings.ContainsFunc(raw, unicode.IsControl) {
		return "", refuse("An entry name is not valid text (no control characters): %q.", raw)
	}
	// Zips made on Windows sometimes use backslashes.
	n := strings.ReplaceAll(raw, `\`, "/")
	if strings.HasPrefix(n, "/") || (len(n) >= 2 && n[1] == ':') {
		return "", refuse("%s is an absolute path; paths must stay inside the bot folder.", raw)
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return "", refuse("%s leaves the bot folder (..); paths must stay inside it.", raw)
		}
	}
	n = path.Clean(n)
	if n == "." {
		return "", nil
	}
	if len(n) > 1024 {
		return "", refuse("An entry name is longer than 1024 characters.")
	}
	return n, nil
}

// stripSingleFolder turns a zip of one folder into the folder's contents,
// unless a manifest sits at the root already.
func stripSingleFolder(entries []entry) []entry {
	var top string
	for _, e := range entries {
		first, _, _ := strings.Cut(e.name, "/")
		if !e.dir && e.name == first {
			return entries // a file at the root
		}
		if top != "" && first != top {
			return entries
		}
		top = first
	}
	out := make([]entry, 0, len(entries))
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.name, top+"/")
		if !ok {
			continue // the folder itself
		}
		e.name = rest
		out = append(out, e)
	}
	return out
}

// verify reads every file to its end, so archive/zip checks its CRC and
// that it unpacks to exactly the declared size.
func verify(entries []entry) error {
	for _, e := range entries {
		if e.dir {
			continue
		}
		rc, err := e.f.Open()
		if err != nil {
			return refuse("%s cannot be read: %v.", e.name, err)
		}
		h := crc32.NewIEEE()
		n, err := io.Copy(h, io.LimitReader(rc, int64(e.f.UncompressedSize64)+1))
		rc.Close()
		if err != nil || uint64(n) != e.f.UncompressedSize64 {
			return refuse("%s is damaged in the zip (%v).", e.name, errOr(err, "wrong size"))
		}
	}
	return nil
}

func errOr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// manifest parses the root manifest: bot.json, else entry.zon, else run.sh.
func manifest(entries []entry) (botmeta.Manifest, error) {
	byName := make(map[string]entry, len(entries))
	for _, e := range entries {
		byName[e.name] = e
	}
	read := func(e entry) ([]byte, error) {
		if e.f.UncompressedSize64 > botmeta.MaxManifestBytes {
			return nil, refuse("%s is %s; a manifest is at most %s.", e.name,
				bytesize.Format(int64(e.f.UncompressedSize64)), bytesize.Format(botmeta.MaxManifestBytes))
		}
		rc, err := e.f.Open()
		if err != nil {
			return nil, refuse("%s cannot be read: %v.", e.name, err)
		}
		defer rc.Close()
		var buf bytes.Buffer
		if _, err := io.Copy(&buf, io.LimitReader(rc, botmeta.MaxManifestBytes+1)); err != nil {
			return nil, refuse("%s cannot be read: %v.", e.name, err)
		}
		return buf.Bytes(), nil
	}
	var m botmeta.Manifest
	var err error
	if e, ok := byName[botmeta.BotJSON]; ok && !e.dir {
		data, rerr := read(e)
		if rerr != nil {
			return m, rerr
		}
		m, err = botmeta.Parse(data)
	} else if e, ok := byName[botmeta.EntryZON]; ok && !e.dir {
		data, rerr := read(e)
		if rerr != nil {
			return m, rerr
		}
		m, err = botmeta.ParseZON(data)
	} else if e, ok := byName[botmeta.RunSh]; ok && !e.dir {
		m = botmeta.RunShManifest()
	} else {
		return m, refuse("There is no bot.json at the root of the zip. It names the bot's language and the file that starts it, " +
			`for example {"Author":"Me","BotType":"Python3","RunFile":"bot.py"}.`)
	}
	if err != nil {
		return m, refuse("%v", err)
	}
	if _, ok := byName[m.RunFile]; m.RunFile != "" && !ok {
		// Compiled languages produce their RunFile at build time; only
		// interpreted bots must ship it.
		if interpreted(m.BotType) {
			return m, refuse("%s names RunFile %q, which is not in the zip.", m.Source, m.RunFile)
		}
	}
	return m, nil
}

func interpreted(t botmeta.BotType) bool {
	switch t {
	case botmeta.Python2, botmeta.Python3, botmeta.JavaScript, botmeta.Julia:
		return true
	}
	return false
}
