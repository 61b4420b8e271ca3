package botexec

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// MissingRuntimeError says a bot's language runtime is not installed.
type MissingRuntimeError struct {
	Language string
	// Programs are the programs looked for, any of which would do.
	Programs []string
}

func (e *MissingRuntimeError) Error() string {
	return fmt.Sprintf("%s bots need %s, which is not installed on this machine", e.Language, strings.Join(e.Programs, " or "))
}

// Runtimes finds language runtimes on this machine and remembers what it
// found. Version-manager shims (pyenv) are resolved to the real
// interpreter, because a shim does not work inside the sandbox.
type Runtimes struct {
	lookPath func(string) (string, error)
	// pyenvRoot is where pyenv keeps its versions; empty when unknown.
	pyenvRoot string

	mu    sync.Mutex
	cache map[string]found
}

type found struct {
	path string
	err  error
}

// NewRuntimes returns a finder that searches PATH.
func NewRuntimes() *Runtimes {
	root := os.Getenv("PYENV_ROOT")
	if root == "" {
		if home, err := os.UserHomeDir(); err == nil {
			root = filepath.Join(home, ".pyenv")
		}
	}
	return &Runtimes{lookPath: exec.LookPath, pyenvRoot: root, cache: map[string]found{}}
}

// Find returns the absolute path of the first of programs that is
// installed, or a MissingRuntimeError for language.
func (r *Runtimes) Find(language string, programs ...string) (string, error) {
	for _, p := range programs {
		if path, err := r.find(p); err == nil {
			return path, nil
		}
	}
	return "", &MissingRuntimeError{Language: language, Programs: programs}
}

func (r *Runtimes) find(program string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.cache[program]; ok {
		return f.path, f.err
	}
	path, err := r.resolve(program)
	r.cache[program] = found{path, err}
	return path, err
}

func (r *Runtimes) resolve(program string) (string, error) {
	path, err := r.lookPath(program)
	if err != nil {
		return "", err
	}
	if path, err = filepath.Abs(path); err != nil {
		return "", err
	}
	if filepath.Base(filepath.Dir(path)) != "shims" {
		return path, nil
	}
	if real := r.pyenvVersion(program); real != "" {
		return real, nil
	}
	return "", fmt.Errorf("%s is a version-manager shim with no installed version behind it", path)
}

// pyenvVersion returns the interpreter of pyenv's global version when it
// provides program, else that of the newest version that does.
func (r *Runtimes) pyenvVersion(program string) string {
	if r.pyenvRoot == "" {
		return ""
	}
	if b, err := os.ReadFile(filepath.Join(r.pyenvRoot, "version")); err == nil {
		for _, v := range strings.Fields(string(b)) {
			if p := filepath.Join(r.pyenvRoot, "versions", v, "bin", program); isExecutable(p) {
				return p
			}
		}
	}
	matches, _ := filepath.Glob(filepath.Join(r.pyenvRoot, "versions", "*", "bin", program))
	sort.Slice(matches, func(i, j int) bool {
		return versionLess(versionOf(matches[j]), versionOf(matches[i]))
	})
	for _, p := range matches {
		if isExecutable(p) {
			return p
		}
	}
	return ""
}

// versionOf reads "3.11.7" from ".../versions/3.11.7/bin/python3".
func versionOf(path string) []int {
	var out []int
	for _, part := range strings.Split(filepath.Base(filepath.Dir(filepath.Dir(path))), ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			break
		}
		out = append(out, n)
	}
	return out
}

func versionLess(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// errNotExecutable is wrapped when a native RunFile lacks its x bit.
var errNotExecutable = errors.New("is not executable")
