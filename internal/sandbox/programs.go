package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ProgramsRoot is the host folder under which the platform keeps the
// folders of program links a bot finds first on its PATH (Cmd.Path): the
// interpreters a shebang or a run.sh names by their bare name. Every
// sandbox sees it read-only at the same path, so a bot's PATH means the
// same inside as outside.
func ProgramsRoot() string {
	base, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(base) {
		base = filepath.Join(os.TempDir(), "broadside-"+userTag())
	}
	return filepath.Join(base, "broadside", "programs")
}

func userTag() string {
	if u := os.Getenv("USER"); u != "" && !strings.ContainsAny(u, "/\x00") {
		return u
	}
	return "user"
}

// searchPath is PATH for c on a runner whose own PATH is base: the
// command's folders first.
func searchPath(c Cmd, base string) string {
	if len(c.Path) == 0 {
		return base
	}
	return strings.Join(append(append([]string{}, c.Path...), base), string(os.PathListSeparator))
}

// wrapperPrefix starts a program folder's wrapper script; the quoted
// program it starts follows.
const wrapperPrefix = "#!/bin/sh\n# Starts the interpreter of a virtualenv by its own path, so it finds its pyvenv.cfg.\nexec '"

// ProgramWrapper returns the script a program folder holds instead of a
// link for an interpreter of a virtualenv: started through a link, Python
// looks for pyvenv.cfg beside the link and misses the virtualenv's
// packages. ok is false for a path the script cannot quote.
func ProgramWrapper(target string) (script []byte, ok bool) {
	if !filepath.IsAbs(target) || strings.ContainsAny(target, "'\n\x00") {
		return nil, false
	}
	return []byte(wrapperPrefix + target + "' \"$@\"\n"), true
}

// wrapperTarget returns the program a ProgramWrapper script at path
// starts.
func wrapperTarget(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	head := make([]byte, len(wrapperPrefix)+4096)
	n, _ := io.ReadFull(f, head)
	rest, ok := strings.CutPrefix(string(head[:n]), wrapperPrefix)
	if !ok {
		return "", false
	}
	target, _, ok := strings.Cut(rest, "'")
	return target, ok && filepath.IsAbs(target)
}

// InVirtualenv reports whether the program at p, as named (links not
// followed), is a virtualenv's interpreter: a pyvenv.cfg lies beside it or
// one folder up.
func InVirtualenv(p string) bool {
	for _, dir := range []string{filepath.Dir(p), filepath.Dir(filepath.Dir(p))} {
		if _, err := os.Stat(filepath.Join(dir, "pyvenv.cfg")); err == nil {
			return true
		}
	}
	return false
}

// execCommand is exec.Command for args whose program, when named bare, is
// looked up in env's PATH (the command's own, Cmd.Path first), not in
// this process's.
func execCommand(args, env []string) *exec.Cmd {
	cmd := exec.Command(args[0], args[1:]...)
	if strings.Contains(args[0], "/") {
		return cmd
	}
	for i := len(env) - 1; i >= 0; i-- {
		path, ok := strings.CutPrefix(env[i], "PATH=")
		if !ok {
			continue
		}
		for _, dir := range filepath.SplitList(path) {
			p := filepath.Join(dir, args[0])
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
				cmd.Path, cmd.Err = p, nil
				return cmd
			}
		}
		break
	}
	return cmd
}
