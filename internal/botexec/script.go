package botexec

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game"
)

// Named is a program a bot's start-up script names.
type Named struct {
	// Program is a bare name (python) or an absolute path (/usr/bin/python2).
	Program string
	// Where says where, for messages: "the #! line of bot.py", "run.sh line 3".
	Where string
}

// StartScripts are the files of the bot in dir that name the programs it
// starts with: run.sh where the rule set's engine runs it (BrainJar), and
// a RunFile started directly (its #! line). Paths are relative to dir,
// with forward slashes; only files that exist are listed.
func StartScripts(dir string, t game.Traits, runFile string) []string {
	var out []string
	if t.RunSh {
		if st, err := os.Stat(filepath.Join(dir, botmeta.RunSh)); err == nil && st.Mode().IsRegular() {
			out = append(out, botmeta.RunSh)
		}
	}
	if runFile != "" && !slices.Contains(out, runFile) {
		if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(runFile))); err == nil && st.Mode().IsRegular() {
			out = append(out, runFile)
		}
	}
	return out
}

// scriptBytes bounds how much of a script is read: start-up scripts are short.
const scriptBytes = 64 << 10

// NamedPrograms lists the interpreters the script rel (in dir) names: the
// program of its #! line (after env), and, for a shell script, each
// command that starts one of Interpreters. A file without #! is a shell
// script only when it is run.sh, which the BrainJar engine runs with sh.
func NamedPrograms(dir, rel string) ([]Named, error) {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, scriptBytes))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	var out []Named
	shell := path.Base(rel) == botmeta.RunSh
	if line, ok := bytes.CutPrefix(data, []byte("#!")); ok {
		first, _, _ := bytes.Cut(line, []byte("\n"))
		fields := strings.Fields(string(first))
		if len(fields) == 0 {
			return nil, nil
		}
		where := "the #! line of " + rel
		out = append(out, Named{Program: fields[0], Where: where})
		prog := fields[0]
		if path.Base(prog) == "env" {
			if name := envProgram(fields[1:]); name != "" {
				out = append(out, Named{Program: name, Where: where})
				prog = name
			}
		}
		shell = isShell(path.Base(prog))
	}
	if !shell {
		return out, nil
	}
	for i, line := range strings.Split(string(data), "\n") {
		if i == 0 && strings.HasPrefix(line, "#!") {
			continue
		}
		for _, seg := range commandSeparators.Split(stripComment(line), -1) {
			if name := commandProgram(strings.Fields(seg)); name != "" {
				out = append(out, Named{Program: name, Where: fmt.Sprintf("%s line %d", rel, i+1)})
			}
		}
	}
	return out, nil
}

// commandSeparators split a shell line into commands, roughly: enough to
// find the program each starts.
var commandSeparators = regexp.MustCompile("[;&|()`{}]|\\$\\(|\\bthen\\b|\\bdo\\b|\\belse\\b")

func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "ash", "ksh", "zsh":
		return true
	}
	return false
}

// envProgram is the program `env [options] [NAME=value…] program` runs.
func envProgram(args []string) string {
	for _, a := range args {
		if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
			continue
		}
		return a
	}
	return ""
}

// commandProgram is the interpreter a shell command starts, if it names
// one of Interpreters (bare or by an absolute path).
func commandProgram(words []string) string {
	for len(words) > 0 {
		w := words[0]
		switch {
		case w == "exec" || w == "command" || w == "nohup" || w == "time":
			words = words[1:]
			continue
		case w == "env":
			words = words[1:]
			for len(words) > 0 && (strings.HasPrefix(words[0], "-") || strings.Contains(words[0], "=")) {
				words = words[1:]
			}
			continue
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "="):
			words = words[1:]
			continue
		}
		break
	}
	if len(words) == 0 {
		return ""
	}
	w := strings.Trim(words[0], `"'`)
	if !slices.Contains(Interpreters, path.Base(w)) {
		return ""
	}
	if strings.Contains(w, "/") && !path.IsAbs(w) {
		return "" // the bot's own file
	}
	return w
}

// stripComment drops a shell comment: a # at the start of a word.
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}
