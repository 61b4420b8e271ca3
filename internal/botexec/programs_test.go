package botexec

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestNamedPrograms(t *testing.T) {
	tests := []struct {
		name, file, body string
		want             []string
	}{
		{"env shebang", "main.py", "#!/usr/bin/env python\nimport sys\n", []string{"/usr/bin/env", "python"}},
		{"env with options", "main.py", "#!/usr/bin/env -S python3 -u\n", []string{"/usr/bin/env", "python3"}},
		{"direct shebang", "bot", "#!/usr/bin/perl -w\nprint 1;\n", []string{"/usr/bin/perl"}},
		{"no shebang, not run.sh", "bot.py", "print('x')\npython other.py\n", nil},
		{"template run.sh", "run.sh", "coffee bot.coffee $1\n", []string{"coffee"}},
		{"run.sh commands", "run.sh", "#!/bin/bash\n# python in a comment\ncd src && exec env A=1 node bot.js \"$1\"\nX=2 ruby x.rb | php y.php; echo python\n",
			[]string{"/bin/bash", "node", "ruby", "php"}},
		{"own program", "run.sh", "./bot $1\nbin/python x\n", nil},
		{"absolute interpreter", "run.sh", "/usr/bin/python2 bot.py $1\n", []string{"/usr/bin/python2"}},
		{"python script is not shell", "bot.py", "#!/usr/bin/python3\nnode = 1\n", []string{"/usr/bin/python3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			named, err := NamedPrograms(dir, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range named {
				got = append(got, n.Program)
				if n.Where == "" {
					t.Errorf("%s without a place", n.Program)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestProgramsPython checks what "python" links to per rule set, with and
// without a Python 2.7 on the machine.
func TestProgramsPython(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	bin := t.TempDir()
	for _, p := range []string{"python3", "python2.7", "node"} {
		if err := os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runtimes := func(without string) *Runtimes {
		look := func(name string) (string, error) {
			if name == without {
				return "", exec.ErrNotFound
			}
			p := filepath.Join(bin, name)
			if _, err := os.Stat(p); err != nil {
				return "", exec.ErrNotFound
			}
			return p, nil
		}
		return &Runtimes{lookPath: look, cache: map[string]found{}}
	}
	tests := []struct {
		name     string
		without  string
		python   PythonDefault
		want     string // what python links to
		wantNote bool
	}{
		{"deepship", "", Python3First, "python3", false},
		{"brainjar with 2.7", "", Python2First, "python2.7", false},
		{"brainjar without 2.7", "python2.7", Python2First, "python3", true},
		{"deepship without 2.7", "python2.7", Python3First, "python3", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := runtimes(tt.without).Programs(tt.python)
			if err != nil {
				t.Fatal(err)
			}
			target, err := os.Readlink(filepath.Join(p.Dir, "python"))
			if err != nil {
				t.Fatal(err)
			}
			if target != filepath.Join(bin, tt.want) {
				t.Errorf("python -> %s, want %s", target, tt.want)
			}
			if (p.Note != "") != tt.wantNote || tt.wantNote && !strings.Contains(p.Note, "Python 3") {
				t.Errorf("note %q", p.Note)
			}
			if !p.Has("node") || p.Has("ruby") {
				t.Errorf("links %v", p.Names)
			}
			st, err := os.Stat(p.Dir)
			if err != nil || st.Mode().Perm() != 0o755 {
				t.Errorf("folder %v %v", st, err)
			}
			// The same links give the same folder, made once.
			again, err := runtimes(tt.without).Programs(tt.python)
			if err != nil || again.Dir != p.Dir {
				t.Errorf("second folder %s (%v), want %s", again.Dir, err, p.Dir)
			}
		})
	}
}

// TestProgramsVirtualenv checks that a virtualenv first on PATH is what a
// bot's bare "python3" starts: through a link, Python would look for
// pyvenv.cfg beside the link and miss the virtualenv.
func TestProgramsVirtualenv(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command(python, "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		t.Fatalf("make a virtualenv: %v\n%s", err, out)
	}
	t.Setenv("PATH", filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	p, err := NewRuntimes().Programs(Python3First)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"python3", "python"} {
		out, err := exec.Command(filepath.Join(p.Dir, name), "-c", "import sys; print(sys.prefix)").CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != venv {
			t.Errorf("%s from the programs folder: sys.prefix %q (%v), want %s", name, got, err, venv)
		}
	}
}
