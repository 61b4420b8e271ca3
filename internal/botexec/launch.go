// Package botexec says how each kind of bot is started: the command line
// for its BotType and the start-up calibration of its language.
package botexec

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game"
)

// Launch is how a bot is started. The rule set adds its protocol arguments
// between Command and TrailingArgs (Entelect: the player key and the round
// folder).
type Launch struct {
	// Command is the program and its leading arguments; the program is an
	// absolute path.
	Command []string
	// TrailingArgs are the manifest's RunArgs, for bot types that take them.
	TrailingArgs []string
	// Language names the runtime whose start-up cost is calibrated: the
	// BotType's name, or for an Executable the language its shebang line
	// names ("Executable" for a native program).
	Language string
}

// Command returns the launch of the bot described by m in the folder dir
// (absolute), for the rule set whose traits are t. It fails when the RunFile is missing or the language runtime
// is not installed, saying which.
//
// The command lines follow the original engine on Unix (spec §5), with
// these exceptions: CPlusPlus bots are native programs (the original ran
// them through mono), and Julia drops the flags of Julia 0.6.
func Command(rt *Runtimes, m botmeta.Manifest, dir string, t game.Traits) (Launch, error) {
	if !filepath.IsAbs(dir) {
		return Launch{}, fmt.Errorf("bot folder %q is not an absolute path", dir)
	}
	runFile := filepath.Join(dir, filepath.FromSlash(m.RunFile))
	if err := checkRunFile(m, runFile); err != nil {
		if errors.Is(err, errNotExecutable) && startsRunSh(m, t) {
			// The engine runs run.sh through its #! line (sh without
			// one), executable or not.
			return Launch{Command: append(scriptInterpreter(runFile), runFile), Language: shebangLanguage(runFile)}, nil
		}
		return Launch{}, err
	}
	l := Launch{TrailingArgs: m.Args(), Language: m.BotType.String()}
	interp := func(programs ...string) ([]string, error) {
		p, err := rt.Find(m.BotType.String(), programs...)
		return []string{p}, err
	}
	var err error
	switch m.BotType {
	case botmeta.Python3:
		l.Command, err = interp("python3")
	case botmeta.Python2:
		l.Command, err = interp("python2", "python2.7")
	case botmeta.JavaScript:
		l.Command, err = interp("node", "nodejs")
	case botmeta.Java, botmeta.Scala:
		// -Xms512m as the original: some bots size their data by the heap.
		l.Command, err = interp("java")
		l.Command = append(l.Command, "-Xms512m", "-jar")
	case botmeta.Julia:
		l.Command, err = interp("julia")
	case botmeta.CSharp, botmeta.FSharp:
		l.Command, err = dotnetCommand(rt, m)
		if err != nil {
			return Launch{}, err
		}
	case botmeta.CPlusPlus, botmeta.Golang, botmeta.Rust:
		return Launch{Command: []string{runFile}, TrailingArgs: l.TrailingArgs, Language: l.Language}, nil
	case botmeta.Executable:
		l.Language = shebangLanguage(runFile)
		return Launch{Command: []string{runFile}, TrailingArgs: l.TrailingArgs, Language: l.Language}, nil
	default:
		return Launch{}, fmt.Errorf("unknown BotType %d", int(m.BotType))
	}
	if err != nil {
		return Launch{}, err
	}
	// Interpreted bots name their RunFile relative to the bot folder, which
	// is their working directory, as the original did.
	l.Command = append(l.Command, m.RunFile)
	return l, nil
}

// dotnetCommand runs .NET bots with mono, or with dotnet for a .dll.
func dotnetCommand(rt *Runtimes, m botmeta.Manifest) ([]string, error) {
	if p, err := rt.Find(m.BotType.String(), "mono"); err == nil {
		return []string{p}, nil
	}
	if strings.EqualFold(path.Ext(m.RunFile), ".dll") {
		if p, err := rt.Find(m.BotType.String(), "dotnet"); err == nil {
			return []string{p}, nil
		}
	}
	return nil, &MissingRuntimeError{Language: m.BotType.String(), Programs: []string{"mono", "dotnet (for a .dll RunFile)"}}
}

// ErrRunFileMissing is wrapped when the RunFile is not in the bot folder,
// usually because the bot was not built.
var ErrRunFileMissing = errors.New("does not exist in the bot folder")

// checkRunFile says clearly when the RunFile is missing or, for programs
// started directly, not executable.
func checkRunFile(m botmeta.Manifest, runFile string) error {
	st, err := os.Stat(runFile)
	if errors.Is(err, fs.ErrNotExist) {
		hint := ""
		if native(m.BotType) {
			hint = " (build the bot first)"
		}
		return fmt.Errorf("RunFile %s %w%s", m.RunFile, ErrRunFileMissing, hint)
	}
	if err != nil {
		return fmt.Errorf("RunFile %s: %w", m.RunFile, err)
	}
	if st.IsDir() {
		return fmt.Errorf("RunFile %s is a folder, not a file", m.RunFile)
	}
	if native(m.BotType) && st.Mode()&0o111 == 0 {
		return fmt.Errorf("RunFile %s %w (chmod +x it)", m.RunFile, errNotExecutable)
	}
	return nil
}

func native(t botmeta.BotType) bool {
	switch t {
	case botmeta.CPlusPlus, botmeta.Golang, botmeta.Rust, botmeta.Executable:
		return true
	}
	return false
}

// startsRunSh says whether m is a bot started by its run.sh in a rule set
// whose engine runs run.sh itself.
func startsRunSh(m botmeta.Manifest, t game.Traits) bool {
	return t.RunSh && m.BotType == botmeta.Executable && m.RunFile == botmeta.RunSh
}

// scriptInterpreter is the command of a script's #! line, else /bin/sh.
func scriptInterpreter(file string) []string {
	f, err := os.Open(file)
	if err != nil {
		return []string{"/bin/sh"}
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	if rest, ok := strings.CutPrefix(line, "#!"); ok {
		if fields := strings.Fields(rest); len(fields) > 0 {
			return fields
		}
	}
	return []string{"/bin/sh"}
}

// shebangLanguage names the language of a directly started program from its
// "#!" line, so that it gets that language's calibration.
func shebangLanguage(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return botmeta.Executable.String()
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return botmeta.Executable.String()
	}
	fields := strings.Fields(line[2:])
	// "#!/usr/bin/env python3" names the interpreter in its second word.
	for len(fields) > 0 && (path.Base(fields[0]) == "env" || strings.HasPrefix(fields[0], "-")) {
		fields = fields[1:]
	}
	if len(fields) == 0 {
		return botmeta.Executable.String()
	}
	switch prog := path.Base(fields[0]); {
	case strings.HasPrefix(prog, "python2"):
		return botmeta.Python2.String()
	case strings.HasPrefix(prog, "python"):
		return botmeta.Python3.String()
	case prog == "node" || prog == "nodejs":
		return botmeta.JavaScript.String()
	case prog == "java":
		return botmeta.Java.String()
	case prog == "julia":
		return botmeta.Julia.String()
	}
	return botmeta.Executable.String()
}
