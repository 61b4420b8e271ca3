package sandbox

import (
	"os"
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
