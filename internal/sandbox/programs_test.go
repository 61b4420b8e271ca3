//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPathFirst checks that Cmd.Path comes first on PATH with every
// runner, and that a folder under ProgramsRoot made after the sandbox
// started is visible in it: a bot's #! line finds the same program inside
// and out.
func TestPathFirst(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	b := newTestBwrap(t) // made before the folder below
	dir := filepath.Join(ProgramsRoot(), "test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/bin/sh", filepath.Join(dir, "hello-sh")); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	sess, err := b.NewSession([]Mount{{Source: work, Writable: true}}, Limits{WallTime: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	script := filepath.Join(work, "bot")
	if err := os.WriteFile(script, []byte("#!/usr/bin/env hello-sh\necho \"$PATH\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]Runner{"host": NewHost(HostConfig{}), "bwrap": b, "session": sess} {
		t.Run(name, func(t *testing.T) {
			// The #! line finds hello-sh only on the command's Path.
			res, err := r.Run(context.Background(), Cmd{Args: []string{script}, Dir: work, Path: []string{dir},
				Mounts: []Mount{{Source: work, Writable: true}},
				Limits: Limits{WallTime: 20 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 0 {
				t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
			}
			if !strings.HasPrefix(string(res.Stdout), dir+":") {
				t.Fatalf("PATH does not start with %s:\n%s", dir, res.Stdout)
			}
		})
	}
}
