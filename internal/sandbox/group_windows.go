//go:build windows

package sandbox

import (
	"os"
	"os/exec"
)

// windowsVars are the variables Windows programs fail without (Python
// needs SystemRoot for its random numbers and sockets, Java and Node the
// profile and temporary folders).
var windowsVars = []string{"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT", "TEMP", "TMP",
	"USERPROFILE", "APPDATA", "LOCALAPPDATA", "ProgramData", "ProgramFiles", "ProgramFiles(x86)"}

// platformEnv is what programs need here besides PATH, HOME and LANG.
func platformEnv() []string {
	var env []string
	for _, k := range windowsVars {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// ownGroup does nothing on Windows: there are no process groups to kill.
func ownGroup(cmd *exec.Cmd) {}

// killTree kills the started process only; its children survive it on
// Windows (see docs/sandbox.md).
func killTree(cmd *exec.Cmd) {
	_ = cmd.Process.Kill()
}

// signalName is empty on Windows, which has no signals.
func signalName(st *os.ProcessState) string { return "" }
