package botexec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// Interpreters are the programs a bot may start by their bare name, from
// its #! line or its run.sh: every language runtime the platform supports.
// Those installed here are linked in the bot's programs folder, first on
// its PATH inside the sandbox and out.
var Interpreters = []string{
	"python", "python3", "python2", "python2.7", "node", "nodejs", "coffee", "ruby", "php", "perl",
	"java", "mono", "dotnet", "julia",
}

// PythonDefault says what the bare name "python" starts.
type PythonDefault int

const (
	// Python3First: "python" is Python 3 (In Deep Ship, Entelect, Hit and Sunk).
	Python3First PythonDefault = iota
	// Python2First: "python" is Python 2.7 where the machine has one, else
	// Python 3 with a note in the bot's log (BrainJar, whose machines ran
	// Python 2.7.3).
	Python2First
)

// PythonFor is what "python" means in a rule set, as the original
// competition's machines had it.
func PythonFor(t game.Traits) PythonDefault {
	if t.Python2 {
		return Python2First
	}
	return Python3First
}

// Programs is the folder of program links of one PythonDefault.
type Programs struct {
	// Dir holds a link per installed interpreter; empty when none is.
	Dir string
	// Names are the interpreters linked there, sorted.
	Names []string
	// Note, when set, is for the bot's log: what "python" is here when it
	// is not what the original machines ran.
	Note string
}

// Has says whether name is linked in the folder.
func (p Programs) Has(name string) bool {
	i := sort.SearchStrings(p.Names, name)
	return i < len(p.Names) && p.Names[i] == name
}

// Programs returns the programs folder for python, creating it under
// sandbox.ProgramsRoot when missing. Its name is a digest of its links, so
// every process of the platform shares it and it never changes once made.
func (r *Runtimes) Programs(python PythonDefault) (Programs, error) {
	links, note := r.links(python)
	if len(links) == 0 {
		return Programs{Note: note}, nil
	}
	names := make([]string, 0, len(links))
	for n := range links {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s=%s\n", n, links[n])
	}
	root := sandbox.ProgramsRoot()
	dir := filepath.Join(root, hex.EncodeToString(h.Sum(nil))[:16])
	if err := makeLinkDir(root, dir, links); err != nil {
		return Programs{}, fmt.Errorf("programs folder: %w", err)
	}
	return Programs{Dir: dir, Names: names, Note: note}, nil
}

// links maps each installed interpreter to its real program.
func (r *Runtimes) links(python PythonDefault) (map[string]string, string) {
	links := map[string]string{}
	for _, n := range Interpreters {
		if n == "python" {
			continue
		}
		if p, err := r.find(n); err == nil {
			links[n] = p
		}
	}
	py2 := links["python2.7"]
	if py2 == "" {
		py2 = links["python2"]
	}
	note := ""
	switch {
	case python == Python2First && py2 != "":
		links["python"] = py2
	case links["python3"] != "":
		links["python"] = links["python3"]
		if python == Python2First {
			note = "python is Python 3 on this machine, which has no Python 2.7: Python 2 code (print statements, " +
				"integer /) fails or behaves differently"
		}
	}
	return links, note
}

// makeLinkDir creates dir with links (for a virtualenv's interpreter, a
// script that starts it by its own path), whole or not at all: the links are
// made in a temporary folder renamed into place. A dir already there was
// made the same way with the same links.
func makeLinkDir(root, dir string, links map[string]string) error {
	if st, err := os.Lstat(dir); err == nil {
		if !st.IsDir() || st.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%s is not a folder only this user may change", dir)
		}
		return nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(root, ".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	for name, target := range links {
		if script, ok := sandbox.ProgramWrapper(target); ok && sandbox.InVirtualenv(target) {
			if err := os.WriteFile(filepath.Join(tmp, name), script, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.Symlink(target, filepath.Join(tmp, name)); err != nil {
			return err
		}
	}
	// Another process may have made the same folder first.
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, fs.ErrExist) && !errors.Is(err, syscall.ENOTEMPTY) {
		return err
	}
	return nil
}
