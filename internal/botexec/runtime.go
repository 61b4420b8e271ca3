package botexec

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
// found. Version-manager shims (pyenv) and rustup proxies are resolved to
// the real program, because they do not work inside the sandbox.
type Runtimes struct {
	lookPath func(string) (string, error)
	// pyenvRoot is where pyenv keeps its versions; empty when unknown.
	pyenvRoot string
	// pyenvVersions is $PYENV_VERSION, which overrides the global version
	// file as it does for pyenv's shims: versions separated by colons, the
	// first that has the program serving it, "system" for the program on
	// PATH outside the shims.
	pyenvVersions string
	// rustupHome is where rustup keeps its toolchains; empty when unknown.
	rustupHome string
	// rustupToolchain is $RUSTUP_TOOLCHAIN, which overrides the default.
	rustupToolchain string

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
	rustup := os.Getenv("RUSTUP_HOME")
	if rustup == "" {
		if home, err := os.UserHomeDir(); err == nil {
			rustup = filepath.Join(home, ".rustup")
		}
	}
	return &Runtimes{lookPath: exec.LookPath, pyenvRoot: root, pyenvVersions: os.Getenv("PYENV_VERSION"),
		rustupHome: rustup, rustupToolchain: os.Getenv("RUSTUP_TOOLCHAIN"), cache: map[string]found{}}
}

// Find returns the absolute path of the first of programs that is
// installed, or a MissingRuntimeError for language. A program that is
// there but is a shim or proxy with nothing behind it gives that error,
// which says more than "not installed".
func (r *Runtimes) Find(language string, programs ...string) (string, error) {
	var unresolved error
	for _, p := range programs {
		path, err := r.find(p)
		if err == nil {
			return path, nil
		}
		if errors.Is(err, errUnresolved) && unresolved == nil {
			unresolved = err
		}
	}
	if unresolved != nil {
		return "", fmt.Errorf("%s bots: %w", language, unresolved)
	}
	return "", &MissingRuntimeError{Language: language, Programs: programs}
}

// errUnresolved is wrapped when a shim or proxy has no real program behind it.
var errUnresolved = errors.New("no installed version behind it")

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
	if isRustupProxy(path) {
		if real := r.rustupProgram(program); real != "" {
			return real, nil
		}
		return "", fmt.Errorf("%s is a rustup proxy with %w (no toolchain with %s in %s)",
			path, errUnresolved, program, filepath.Join(r.rustupHome, "toolchains"))
	}
	if filepath.Base(filepath.Dir(path)) != "shims" {
		return path, nil
	}
	if real := r.pyenvVersion(program); real != "" {
		return real, nil
	}
	return "", fmt.Errorf("%s is a version-manager shim with %w", path, errUnresolved)
}

// isRustupProxy says whether path is rustup itself under another name
// (cargo, rustc): a symlink to rustup or a hard link beside it.
func isRustupProxy(path string) bool {
	if filepath.Base(path) == "rustup" {
		return false
	}
	if real, err := filepath.EvalSymlinks(path); err == nil && filepath.Base(real) == "rustup" {
		return true
	}
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	beside, err := os.Stat(filepath.Join(filepath.Dir(path), "rustup"))
	return err == nil && os.SameFile(st, beside)
}

var rustupDefault = regexp.MustCompile(`(?m)^\s*default_toolchain\s*=\s*"([^"]+)"`)

// rustupProgram returns program from the toolchain rustup would use:
// $RUSTUP_TOOLCHAIN, else default_toolchain of settings.toml, else the
// newest installed (stable, then the highest numbered release, then the
// others by name).
func (r *Runtimes) rustupProgram(program string) string {
	if r.rustupHome == "" {
		return ""
	}
	toolchains := filepath.Join(r.rustupHome, "toolchains")
	in := func(name string) string {
		// Settings may name a toolchain without its host triple ("stable").
		for _, dir := range []string{name, name + "-*"} {
			matches, _ := filepath.Glob(filepath.Join(toolchains, dir, "bin", program))
			sort.Strings(matches)
			for _, p := range matches {
				if isExecutable(p) {
					return p
				}
			}
		}
		return ""
	}
	wanted := r.rustupToolchain
	if wanted == "" {
		if b, err := os.ReadFile(filepath.Join(r.rustupHome, "settings.toml")); err == nil {
			if m := rustupDefault.FindSubmatch(b); m != nil {
				wanted = string(m[1])
			}
		}
	}
	if wanted != "" && !strings.ContainsAny(wanted, `/\`) {
		if p := in(wanted); p != "" {
			return p
		}
	}
	entries, _ := os.ReadDir(toolchains)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Slice(names, func(i, j int) bool { return toolchainNewer(names[i], names[j]) })
	for _, n := range names {
		if p := in(n); p != "" {
			return p
		}
	}
	return ""
}

// toolchainNewer orders toolchain folder names newest first: stable, then
// numbered releases from the highest, then the rest by name.
func toolchainNewer(a, b string) bool {
	rank := func(name string) int {
		switch {
		case name == "stable" || strings.HasPrefix(name, "stable-"):
			return 0
		case len(releaseOf(name)) > 0:
			return 1
		}
		return 2
	}
	ra, rb := rank(a), rank(b)
	if ra != rb {
		return ra < rb
	}
	if va, vb := releaseOf(a), releaseOf(b); ra == 1 && !slices.Equal(va, vb) {
		return versionLess(vb, va)
	}
	return a < b
}

// releaseOf reads 1.75.0 from "1.75.0-x86_64-unknown-linux-gnu".
func releaseOf(name string) []int {
	return numbers(strings.SplitN(name, "-", 2)[0])
}

// pyenvVersion returns the interpreter that pyenv's shim would run: that of the first version of $PYENV_VERSION, else of
// the global version file, that provides program; else that of the newest
// version that does.
func (r *Runtimes) pyenvVersion(program string) string {
	if r.pyenvRoot == "" {
		return ""
	}
	wanted := strings.Split(r.pyenvVersions, ":")
	if r.pyenvVersions == "" {
		if b, err := os.ReadFile(filepath.Join(r.pyenvRoot, "version")); err == nil {
			wanted = strings.Fields(string(b))
		}
	}
	for _, v := range wanted {
		v = strings.TrimSpace(v)
		switch {
		case v == "system":
			if p := systemProgram(program); p != "" {
				return p
			}
		case v != "" && !strings.ContainsAny(v, `/\`):
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

// systemProgram finds program on PATH as pyenv's "system" version does:
// in any folder but shims (pyenv's, or pyenv-virtualenv's).
func systemProgram(program string) string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || filepath.Base(dir) == "shims" {
			continue
		}
		if p := filepath.Join(dir, program); isExecutable(p) {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
		}
	}
	return ""
}

// versionOf reads "3.11.7" from ".../versions/3.11.7/bin/python3".
func versionOf(path string) []int {
	return numbers(filepath.Base(filepath.Dir(filepath.Dir(path))))
}

// numbers reads the leading dotted numbers of a version: 3.11.7 from "3.11.7".
func numbers(version string) []int {
	var out []int
	for _, part := range strings.Split(version, ".") {
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
