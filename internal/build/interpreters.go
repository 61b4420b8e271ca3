package build

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// checkInterpreters fails a bot whose run.sh or #! line names an
// interpreter this platform does not have, naming it, rather than letting
// a build succeed for a bot that would die on every turn.
func (b *Builder) checkInterpreters(dir string, m botmeta.Manifest, t game.Traits) error {
	rt := b.Runtimes
	if rt == nil {
		rt = botexec.NewRuntimes()
	}
	progs, err := rt.Programs(botexec.PythonFor(t))
	if err != nil {
		return err
	}
	// Only a RunFile started directly runs its #! line; an interpreted
	// one is started by its BotType's interpreter.
	runFile := ""
	if m.BotType == botmeta.Executable {
		runFile = m.RunFile
	}
	var missing []string
	for _, s := range botexec.StartScripts(dir, t, runFile) {
		named, err := botexec.NamedPrograms(dir, s)
		if err != nil {
			return err
		}
		for _, n := range named {
			if !available(n.Program, progs) {
				missing = append(missing, fmt.Sprintf("%s (named by %s)", n.Program, n.Where))
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("this platform has no %s; the interpreters bots may use here are: %s",
			strings.Join(missing, ", "), strings.Join(progs.Names, ", "))
	}
	return nil
}

// available says whether a bot can start program: a bare name linked in
// its programs folder, or an absolute path the sandbox shows.
func available(program string, progs botexec.Programs) bool {
	if !filepath.IsAbs(program) {
		if progs.Has(program) {
			return true
		}
		// Any other program of the system folders on the sandbox's PATH
		// (sh, bash, awk).
		for _, d := range []string{"/usr/bin", "/bin", "/usr/local/bin"} {
			if st, err := os.Stat(filepath.Join(d, program)); err == nil && !st.IsDir() {
				return true
			}
		}
		return false
	}
	if _, err := os.Stat(program); err != nil {
		return false
	}
	visible := append([]string{"/usr", "/bin", "/sbin", "/lib", "/lib64"}, sandbox.DefaultRuntimePaths()...)
	for _, v := range visible {
		if program == v || strings.HasPrefix(program, v+"/") {
			return true
		}
	}
	return false
}
