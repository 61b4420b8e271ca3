package botmeta

import (
	"bytes"
	"path"
	"strings"
)

// interpreterLanguages name the language of the interpreters a #! line
// may start.
var interpreterLanguages = map[string]string{
	"python": "Python", "python3": "Python", "python2": "Python", "pypy3": "Python",
	"node": "JavaScript", "nodejs": "JavaScript", "deno": "JavaScript", "bun": "JavaScript",
	"ruby": "Ruby", "php": "PHP", "perl": "Perl", "lua": "Lua", "julia": "Julia",
	"java": "Java", "Rscript": "R", "bash": "Shell", "sh": "Shell", "dash": "Shell",
}

// extensionLanguages name the language of a program by its file name.
var extensionLanguages = map[string]string{
	".py": "Python", ".js": "JavaScript", ".mjs": "JavaScript", ".rb": "Ruby", ".php": "PHP",
	".pl": "Perl", ".lua": "Lua", ".jl": "Julia", ".sh": "Shell", ".jar": "Java",
}

// ProgramLanguage names the language of an Executable bot from its
// program: the interpreter of its #! line, a compiled program, or its
// file name's extension; "Executable" when none tells. head is the
// program's first bytes.
func ProgramLanguage(runFile string, head []byte) string {
	if line, ok := bytes.CutPrefix(head, []byte("#!")); ok {
		line, _, _ = bytes.Cut(line, []byte("\n"))
		words := strings.Fields(string(line))
		if len(words) > 0 {
			prog := path.Base(words[0])
			if prog == "env" {
				prog = ""
				for _, w := range words[1:] {
					if !strings.HasPrefix(w, "-") {
						prog = w
						break
					}
				}
			}
			if lang := interpreterLanguages[prog]; lang != "" {
				return lang
			}
		}
	}
	if bytes.HasPrefix(head, []byte("\x7fELF")) {
		return "Compiled program"
	}
	if lang := extensionLanguages[strings.ToLower(path.Ext(runFile))]; lang != "" {
		return lang
	}
	return Executable.String()
}
