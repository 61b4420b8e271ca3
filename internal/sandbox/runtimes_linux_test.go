//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/command"
)

// TestRuntimeMounts checks what the sandbox shows for interpreters that
// live outside the folders it always shows.
func TestRuntimeMounts(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	t.Setenv("HOME", home)
	file := func(p string) string {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(p, target string) string {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	in := func(p string) string { return filepath.Join(root, p) }

	// A virtualenv whose python3 links to the system's interpreter.
	link("venv/bin/python3", "/usr/bin/python3")
	file("venv/pyvenv.cfg")
	// A virtualenv made with --copies: its base interpreter sits in a
	// prefix of its own, named by pyvenv.cfg.
	file("opt/py/bin/python3")
	file("copies/bin/python3")
	if err := os.WriteFile(in("copies/pyvenv.cfg"), []byte("home = "+in("opt/py/bin")+"\nversion = 3.11\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A venv linking to an interpreter under another prefix (conda, /opt).
	file("conda/bin/python3.12")
	link("conda/bin/python3", "python3.12")
	link("env/bin/python3", in("conda/bin/python3"))
	// A user's own programs.
	file("home/bin/tool")
	file("home/.local/bin/tool")
	file("home/.local/lib/x")
	file("home/.local/share/keyrings/secret")
	// A program folder's link, as botexec makes them.
	link("programs/python3", in("env/bin/python3"))

	h := newHostRuntimes(func(p string) bool { return p == "/usr" || strings.HasPrefix(p, "/usr/") })
	for _, tc := range []struct {
		name string
		prog string
		want []string
	}{
		{"system interpreter", "/usr/bin/python3", nil},
		{"virtualenv", in("venv/bin/python3"), []string{in("venv")}},
		{"virtualenv with copies", in("copies/bin/python3"), []string{in("copies"), in("opt/py")}},
		{"links through two prefixes", in("env/bin/python3"), []string{in("conda"), in("env")}},
		{"program folder's link", in("programs/python3"), []string{in("conda"), in("env"), in("programs/python3")}},
		{"home's bin only", in("home/bin/tool"), []string{in("home/bin")}},
		{"~/.local without share", in("home/.local/bin/tool"), []string{in("home/.local/bin"), in("home/.local/lib")}},
		{"relative", "python3", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, m := range h.mounts(nil, tc.prog) {
				got = append(got, m.Source)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("mounts(%s) = %v, want %v", tc.prog, got, tc.want)
			}
		})
	}
	t.Run("removed runtime", func(t *testing.T) {
		gone := link("gone/bin/python3", in("removed/bin/python3"))
		if got := h.mounts(nil, gone); len(got) != 1 || got[0].Source != in("gone") {
			t.Errorf("mounts = %v, want only %s", got, in("gone"))
		}
	})
}

// TestVirtualenvInSandbox runs a virtualenv's interpreter, from a folder the
// sandbox's own /tmp hides, in a fresh sandbox and in a session, as a bot
// started from an activated virtualenv is.
func TestVirtualenvInSandbox(t *testing.T) {
	b := newTestBwrap(t)
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command(python, "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		t.Fatalf("make a virtualenv: %v\n%s", err, out)
	}
	// The program folder a bot's PATH starts with, as botexec makes it:
	// a wrapper, since through a link Python would miss the virtualenv.
	programs := filepath.Join(programsRoot(), "test-venv-"+filepath.Base(filepath.Dir(venv)))
	if err := os.MkdirAll(programs, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(programs) })
	script, ok := ProgramWrapper(filepath.Join(venv, "bin", "python3"))
	if !ok || !InVirtualenv(filepath.Join(venv, "bin", "python3")) {
		t.Fatalf("no wrapper for %s", venv)
	}
	if err := os.WriteFile(filepath.Join(programs, "python3"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	prefix := []string{"-c", "import sys; print(sys.prefix)"}
	limits := Limits{WallTime: time.Minute, OutputBytes: 4096}
	check := func(t *testing.T, r Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(r.Stdout)); r.ExitCode != 0 || got != venv {
			t.Fatalf("exit %d, sys.prefix %q, want %q; stderr %s", r.ExitCode, got, venv, r.Stderr)
		}
	}
	t.Run("fresh, by absolute path", func(t *testing.T) {
		r, err := b.Run(context.Background(), Cmd{Args: append([]string{filepath.Join(venv, "bin", "python3")}, prefix...), Limits: limits})
		check(t, r, err)
	})
	t.Run("session, by name from the program folder", func(t *testing.T) {
		s, err := b.NewSession([]Mount{{Source: work, Writable: true}}, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		r, err := s.Run(context.Background(), Cmd{Args: append([]string{"python3"}, prefix...), Path: []string{programs}, Dir: work, Limits: limits})
		check(t, r, err)
		if st := s.Stats(); st.Fresh != 0 {
			t.Errorf("the command ran in a fresh sandbox (%+v): the session should show the virtualenv", st)
		}
	})
	t.Run("not visible", func(t *testing.T) {
		err := b.checkVisible(filepath.Join(venv, "bin", "python3"), nil)
		if !errors.Is(err, command.ErrPlatform) || !strings.Contains(err.Error(), "is not visible in the sandbox") {
			t.Errorf("checkVisible = %v, want a reason wrapping command.ErrPlatform", err)
		}
	})
	// Last: it removes the virtualenv. A session shows every interpreter
	// of the program folders for a whole match, and its commands that run
	// in a fresh sandbox (after the session broke) take the session's
	// mounts: one whose virtualenv was removed meanwhile must still start.
	t.Run("removed while a session runs", func(t *testing.T) {
		s, err := b.NewSession([]Mount{{Source: work, Writable: true}}, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := os.RemoveAll(venv); err != nil {
			t.Fatal(err)
		}
		s.breakSession()
		r, err := s.Run(context.Background(), Cmd{Args: []string{"/bin/echo", "started"}, Dir: work, Limits: limits})
		if err != nil || r.ExitCode != 0 || strings.TrimSpace(string(r.Stdout)) != "started" {
			t.Fatalf("a command after the virtualenv was removed: %v, exit %d, stdout %q, stderr %q", err, r.ExitCode, r.Stdout, r.Stderr)
		}
		if st := s.Stats(); st.Fresh != 1 {
			t.Errorf("the command did not run in a fresh sandbox: %+v", st)
		}
	})
}
