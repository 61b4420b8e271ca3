package sandbox

import (
	"os"
	"strings"
)

// WithDefaults returns l with every zero field taken from d.
func WithDefaults(l, d Limits) Limits {
	if l.CPUTime == 0 {
		l.CPUTime = d.CPUTime
	}
	if l.WallTime == 0 {
		l.WallTime = d.WallTime
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = d.MemoryBytes
	}
	if l.Processes == 0 {
		l.Processes = d.Processes
	}
	if l.FileSizeBytes == 0 {
		l.FileSizeBytes = d.FileSizeBytes
	}
	if l.OpenFiles == 0 {
		l.OpenFiles = d.OpenFiles
	}
	if l.OutputBytes == 0 {
		l.OutputBytes = d.OutputBytes
	}
	return l
}

// minimalEnv is the environment of a command: PATH, HOME and LANG, then the
// command's own variables (which win, as os/exec keeps the last duplicate).
func minimalEnv(path, home string, extra []string) []string {
	lang := os.Getenv("LANG")
	if lang == "" || strings.ContainsAny(lang, "\n\x00") {
		lang = "C.UTF-8"
	}
	env := []string{"PATH=" + path, "HOME=" + home, "LANG=" + lang}
	return append(env, extra...)
}

// TurnDefaults are the limits of one bot turn on the platform and in the
// local command's --sandbox, for the kinds the rule sets leave at zero
// (they set the wall time and the output cap, and count the CPU time
// themselves). docs/sandbox.md and docs/security.md promise these figures.
func TurnDefaults() Limits {
	return Limits{
		MemoryBytes:   512 << 20,
		Processes:     64,
		FileSizeBytes: 16 << 20,
		OpenFiles:     256,
	}
}
