//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/broadside/broadside/internal/command"
)

// hostRuntimes finds what the sandbox must show, read-only, for an
// interpreter that lives outside the folders every sandbox sees: a
// virtualenv, a conda environment, a runtime under /opt or a user's
// prefix. The interpreters a bot may start are the links of the program
// folders under ProgramsRoot and the programs named by absolute path; for
// each, its own prefix, every prefix its symbolic links lead through, and a
// virtualenv's base interpreter (pyvenv.cfg's home) are shown.
type hostRuntimes struct {
	// visible says whether a host path is seen inside every sandbox.
	visible func(path string) bool

	mu sync.Mutex
	// byProgram caches each program's mounts: programs and the link
	// folders do not change while the process runs.
	byProgram map[string][]string
}

func newHostRuntimes(visible func(string) bool) *hostRuntimes {
	return &hostRuntimes{visible: visible, byProgram: map[string][]string{}}
}

// mounts returns the read-only mounts that make progs, and every
// interpreter linked in the program folders of path, work inside the
// sandbox, sorted and without duplicates.
func (h *hostRuntimes) mounts(path []string, progs ...string) []Mount {
	all := append([]string{}, progs...)
	for _, dir := range path {
		if !strings.HasPrefix(dir, ProgramsRoot()+"/") {
			continue
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			all = append(all, filepath.Join(dir, e.Name()))
		}
	}
	seen := map[string]bool{}
	var out []Mount
	for _, p := range all {
		for _, m := range h.forProgram(p) {
			// A runtime removed since (a deleted virtualenv) is left out,
			// and one removed before a command starts is skipped there
			// (Optional): a session keeps its mounts for a whole match.
			if _, err := os.Stat(m); err != nil {
				continue
			}
			if !seen[m] {
				seen[m] = true
				out = append(out, Mount{Source: m, Optional: true})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Source < out[j].Source })
	return out
}

// forProgram returns the host paths to show for one program.
func (h *hostRuntimes) forProgram(prog string) []string {
	if !filepath.IsAbs(prog) {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.forProgramLocked(prog)
}

func (h *hostRuntimes) forProgramLocked(prog string) []string {
	if m, ok := h.byProgram[prog]; ok {
		return m
	}
	h.byProgram[prog] = nil // a wrapper that leads back here ends the search
	var out []string
	if target, ok := wrapperTarget(prog); ok {
		out = append(out, h.forProgramLocked(target)...)
	}
	for _, p := range linkChain(prog) {
		if h.visible(p) {
			continue
		}
		out = append(out, prefixMounts(p)...)
		if home := venvHome(p); home != "" {
			for _, q := range linkChain(filepath.Join(home, filepath.Base(p))) {
				if !h.visible(q) {
					out = append(out, prefixMounts(q)...)
				}
			}
		}
	}
	h.byProgram[prog] = out
	return out
}

// linkChain is prog followed by each path its symbolic links lead to, the
// last being the program itself. Links are followed one at a time, so a
// virtualenv's bin/python3 (a link) and the interpreter it points to both
// appear.
func linkChain(prog string) []string {
	chain := []string{prog}
	p := prog
	for i := 0; i < 40; i++ {
		target, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = filepath.Clean(target)
		chain = append(chain, p)
	}
	// Links in the folders above are resolved too: the chain's last path
	// as the kernel sees it.
	if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
		chain = append(chain, real)
	}
	return chain
}

// prefixMounts returns what to show for a program at p: the whole prefix
// it is installed in (the folder above its bin), save where that prefix is
// a home folder or the root, which would show a user's files: then only
// the program's folder and, for ~/.local, its lib.
func prefixMounts(p string) []string {
	dir := filepath.Dir(p)
	if b := filepath.Base(dir); b != "bin" && b != "sbin" {
		return []string{p}
	}
	prefix := filepath.Dir(dir)
	home, _ := os.UserHomeDir()
	switch {
	case prefix == "/" || prefix == "/home" || prefix == home || filepath.Dir(prefix) == "/home" || prefix == "/root":
		return []string{dir}
	case home != "" && prefix == filepath.Join(home, ".local"):
		out := []string{dir}
		if _, err := os.Stat(filepath.Join(prefix, "lib")); err == nil {
			out = append(out, filepath.Join(prefix, "lib"))
		}
		return out
	}
	return []string{prefix}
}

// venvHome returns the home of the virtualenv whose interpreter p is (the
// folder of its base interpreter, from pyvenv.cfg beside or above p's
// folder), or "".
func venvHome(p string) string {
	for _, cfg := range []string{filepath.Join(filepath.Dir(p), "pyvenv.cfg"), filepath.Join(filepath.Dir(filepath.Dir(p)), "pyvenv.cfg")} {
		f, err := os.Open(cfg)
		if err != nil {
			continue
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), "=")
			if ok && strings.TrimSpace(k) == "home" && filepath.IsAbs(strings.TrimSpace(v)) {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	return ""
}

// notVisibleError says why a program cannot be started inside the
// sandbox. It is the platform's fault, not the bot's: the rule sets fail
// the match with it rather than have the bot forfeit.
func notVisibleError(prog, resolved string) error {
	why := "it lies outside every folder the sandbox shows"
	if resolved != prog {
		why = fmt.Sprintf("it leads to %s, which lies outside every folder the sandbox shows", resolved)
	}
	return fmt.Errorf("sandbox: %s is not visible in the sandbox because %s (the system's folders, the language runtimes' and the bot's own): %w",
		prog, why, command.ErrPlatform)
}

// programDirs lists the program folders under ProgramsRoot.
func programDirs() []string {
	root := ProgramsRoot()
	entries, _ := os.ReadDir(root)
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	return out
}
