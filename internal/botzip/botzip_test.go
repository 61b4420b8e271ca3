package botzip

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/botmeta"
)

// file is one entry of a test zip.
type file struct {
	name string
	body string
	mode fs.FileMode // 0 means a regular 0644 file
	raw  *zip.FileHeader
}

const pyManifest = `{"Author":"Ann","BotType":"Python3","RunFile":"bot.py"}`

func makeZip(t testing.TB, files ...file) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, f := range files {
		if f.raw != nil {
			fw, err := w.CreateRaw(f.raw)
			if err != nil {
				t.Fatal(err)
			}
			fw.Write([]byte(f.body))
			continue
		}
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate}
		mode := f.mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		fw, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func inspect(data []byte, lim Limits) (botmeta.Manifest, error) {
	return Inspect(bytes.NewReader(data), int64(len(data)), lim)
}

func TestInspect(t *testing.T) {
	bomb := strings.Repeat("\x00", 20<<20)
	small := DefaultLimits()
	small.MaxFiles = 3
	small.MaxUnpackedBytes = 100
	lying := deflated(t, "this is much longer than declared")
	lying.Name = "bot.py"
	lying.UncompressedSize64 = 4

	tests := []struct {
		name    string
		data    []byte
		lim     Limits
		wantErr string // empty: accepted
		check   func(t *testing.T, m botmeta.Manifest)
	}{
		{name: "python bot", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py", body: "print(1)"}),
			check: func(t *testing.T, m botmeta.Manifest) {
				if m.BotType != botmeta.Python3 || m.RunFile != "bot.py" || m.Game != "entelect" {
					t.Fatalf("got %+v", m)
				}
			}},
		{name: "zipped folder is read as its contents",
			data: makeZip(t, file{name: "mybot/", mode: fs.ModeDir | 0o755}, file{name: "mybot/bot.json", body: pyManifest}, file{name: "mybot/bot.py"})},
		{name: "backslash names from Windows", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: `src\bot.py`}, file{name: "bot.py"})},
		{name: "compiled bot may lack its RunFile until built",
			data: makeZip(t, file{name: "bot.json", body: `{"BotType":"Golang","RunFile":"bot"}`}, file{name: "main.go"})},
		{name: "BotType as integer (spec §5)", data: makeZip(t, file{name: "bot.json", body: `{"BotType":5,"RunFile":"a.py"}`}, file{name: "a.py"})},
		{name: "entry.zon (In Deep Ship)", data: makeZip(t, file{name: "entry.zon", body: `.{ .runnable = "bot", .name = "x", .img = "a.png", .emote = "a.wav" }`}, file{name: "bot"}),
			check: func(t *testing.T, m botmeta.Manifest) {
				if m.Game != "deepship" {
					t.Fatalf("got %+v", m)
				}
			}},
		{name: "bare run.sh (BrainJar)", data: makeZip(t, file{name: "run.sh", body: "#!/bin/sh", mode: 0o755}),
			check: func(t *testing.T, m botmeta.Manifest) {
				if m.Game != "brainjar" {
					t.Fatalf("got %+v", m)
				}
			}},

		{name: "not a zip", data: []byte("PK? no, a text file"), wantErr: "not a zip"},
		{name: "a newline in a name", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py"}, file{name: "a\nb.txt"}), wantErr: "control characters"},
		{name: "an escape in a name", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py"}, file{name: "\x1b[2Jx.txt"}), wantErr: "control characters"},
		{name: "a tab in a name", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py"}, file{name: "src/\tx.py"}), wantErr: "control characters"},
		{name: "a C1 control in a name", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py"}, file{name: "x\u009b.txt"}), wantErr: "control characters"},
		{name: "empty file", data: []byte{}, wantErr: "empty"},
		{name: "empty zip", data: makeZip(t), wantErr: "empty"},
		{name: "no bot.json at the root", data: makeZip(t, file{name: "bot.py"}, file{name: "src/bot.json", body: pyManifest}), wantErr: "no bot.json"},
		{name: "invalid JSON", data: makeZip(t, file{name: "bot.json", body: `{"BotType":`}), wantErr: "not valid JSON"},
		{name: "unknown BotType", data: makeZip(t, file{name: "bot.json", body: `{"BotType":"Cobol","RunFile":"a"}`}), wantErr: "Cobol"},
		{name: "interpreted RunFile missing", data: makeZip(t, file{name: "bot.json", body: pyManifest}), wantErr: "not in the zip"},
		{name: "../ path", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py"}, file{name: "../evil"}), wantErr: "leaves the bot folder"},
		{name: `..\ path`, data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py"}, file{name: `a\..\..\evil`}), wantErr: "leaves the bot folder"},
		{name: "absolute path", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "/etc/cron.d/x"}), wantErr: "absolute"},
		{name: "drive letter path", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: `C:\x`}), wantErr: "absolute"},
		{name: "symlink", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py", body: "/etc/passwd", mode: fs.ModeSymlink | 0o777}), wantErr: "symbolic link"},
		{name: "device file", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "dev", mode: fs.ModeDevice | 0o644}), wantErr: "not a regular file"},
		{name: "zip bomb", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py"}, file{name: "zeros", body: bomb}), wantErr: "zip bomb"},
		{name: "too many files", lim: small, data: makeZip(t, file{name: "a"}, file{name: "b"}, file{name: "c"}, file{name: "d"}), wantErr: "entries"},
		{name: "unpacked too big", lim: small, data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py", body: strings.Repeat("x", 200)}), wantErr: "exceed"},
		{name: "zip over the size limit", lim: Limits{MaxZipBytes: 10}, data: makeZip(t, file{name: "bot.json", body: pyManifest}), wantErr: "limit"},
		{name: "duplicate names", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py"}, file{name: "./bot.py"}), wantErr: "twice"},
		{name: "file and folder of one name", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "bot.py"}, file{name: "x"}, file{name: "x/y"}), wantErr: "both a file and a folder"},
		{name: "encrypted entry", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{raw: &zip.FileHeader{Name: "bot.py", Flags: 1, Method: zip.Store}}), wantErr: "encrypted"},
		{name: "header lies about the size", data: makeZip(t, file{name: "bot.json", body: pyManifest}, file{raw: lying, body: lying.Comment}), wantErr: "damaged"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lim := tc.lim
			if lim == (Limits{}) {
				lim = DefaultLimits()
			}
			m, err := inspect(tc.data, lim)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if tc.check != nil {
					tc.check(t, m)
				}
				return
			}
			var refusal *Error
			if !errors.As(err, &refusal) {
				t.Fatalf("got %v, want a refusal mentioning %q", err, tc.wantErr)
			}
			if !strings.Contains(refusal.Msg, tc.wantErr) {
				t.Fatalf("message %q does not mention %q", refusal.Msg, tc.wantErr)
			}
		})
	}
}

// deflated returns a raw header whose Comment carries the deflated body
// (CreateRaw writes the body as given).
func deflated(t *testing.T, body string) *zip.FileHeader {
	t.Helper()
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
	fw.Write([]byte(body))
	fw.Close()
	return &zip.FileHeader{Method: zip.Deflate, CRC32: crc32.ChecksumIEEE([]byte(body)),
		CompressedSize64: uint64(buf.Len()), Comment: buf.String()}
}

func TestExtract(t *testing.T) {
	data := makeZip(t,
		file{name: "bot/", mode: fs.ModeDir | 0o755},
		file{name: "bot/bot.json", body: pyManifest},
		file{name: "bot/bot.py", body: "print(1)"},
		file{name: "bot/run", body: "#!/bin/sh", mode: 0o755},
		file{name: "bot/lib/util.py", body: "x = 1"},
	)
	dir := filepath.Join(t.TempDir(), "out")
	m, err := Extract(bytes.NewReader(data), int64(len(data)), dir, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if m.RunFile != "bot.py" {
		t.Fatalf("manifest %+v", m)
	}
	got, err := os.ReadFile(filepath.Join(dir, "lib", "util.py"))
	if err != nil || string(got) != "x = 1" {
		t.Fatalf("lib/util.py: %q, %v", got, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "run")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Fatalf("executable bit lost: %v %v", st.Mode(), err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "bot.py")); st.Mode().Perm() != 0o644 {
		t.Fatalf("bot.py mode %v", st.Mode())
	}
	t.Run("into an existing folder is refused", func(t *testing.T) {
		if _, err := Extract(bytes.NewReader(data), int64(len(data)), dir, DefaultLimits()); err == nil {
			t.Fatal("extracted over an existing folder")
		}
	})
	t.Run("a refused zip leaves nothing", func(t *testing.T) {
		bad := makeZip(t, file{name: "bot.json", body: pyManifest}, file{name: "../x"})
		out := filepath.Join(t.TempDir(), "bad")
		if _, err := Extract(bytes.NewReader(bad), int64(len(bad)), out, DefaultLimits()); err == nil {
			t.Fatal("accepted")
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("folder left behind: %v", err)
		}
	})
}

// FuzzInspect: arbitrary bytes never panic, refusals are Errors, and
// whatever Inspect accepts extracts inside the target folder.
func FuzzInspect(f *testing.F) {
	f.Add(makeZip(f, file{name: "bot.json", body: pyManifest}, file{name: "bot.py"}))
	f.Add(makeZip(f, file{name: "x/bot.json", body: pyManifest}, file{name: "x/bot.py"}, file{name: "x/../../y"}))
	f.Add(makeZip(f, file{name: "run.sh", mode: 0o755}))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := DefaultLimits()
		lim.MaxUnpackedBytes = 1 << 20
		_, err := inspect(data, lim)
		if err != nil {
			var refusal *Error
			if !errors.As(err, &refusal) {
				t.Fatalf("not a refusal: %v", err)
			}
			return
		}
		root := t.TempDir()
		dir := filepath.Join(root, "bot")
		if _, err := Extract(bytes.NewReader(data), int64(len(data)), dir, lim); err != nil {
			t.Fatalf("inspect accepted but extract failed: %v", err)
		}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if d != nil && d.Type()&fs.ModeSymlink != 0 {
				t.Fatalf("symlink extracted: %s", p)
			}
			return nil
		})
	})
}

// TestDescribe: a zip's language is its BotType, or for an Executable
// (In Deep Ship's entry.zon) the language its program is written in, read
// from the program in the zip, a zipped folder's included.
func TestDescribe(t *testing.T) {
	zon := `.{ .name = "Amy", .runnable = "src/main.py", .img = "a.png", .emote = "a.mp3" }`
	tests := []struct {
		name  string
		files []file
		want  string
	}{
		{"bot.json", []file{{name: "bot.json", body: pyManifest}, {name: "bot.py", body: "print(1)"}}, "Python3"},
		{"entry.zon with a #! line", []file{{name: "entry.zon", body: zon}, {name: "src/main.py", body: "#!/usr/bin/env python3\n", mode: 0o755}}, "Python"},
		{"a zipped folder", []file{{name: "amy/entry.zon", body: zon}, {name: "amy/src/main.py", body: "#!/usr/bin/env node\n", mode: 0o755}}, "JavaScript"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := makeZip(t, tt.files...)
			_, lang, err := Describe(bytes.NewReader(data), int64(len(data)), DefaultLimits())
			if err != nil || lang != tt.want {
				t.Fatalf("Describe: %q, %v; want %q", lang, err, tt.want)
			}
		})
	}
}
