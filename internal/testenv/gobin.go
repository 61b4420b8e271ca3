package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

// Go commands built for the tests of one package: each is built once
// and shared, since a build and link of the worker costs tens of seconds of
// CPU on a loaded machine, and the tests only run the binary.
var goBins struct {
	mu    sync.Mutex
	dir   string
	built map[string]*goBin
}

type goBin struct {
	once sync.Once
	path string
	err  error
}

// GoBinary returns the path of the command pkg (an import path) built with
// `go build`, building it on the first call of the test binary. The
// package's TestMain must call RemoveGoBinaries after m.Run.
func GoBinary(t testing.TB, pkg string) string {
	t.Helper()
	goBins.mu.Lock()
	if goBins.built == nil {
		goBins.built = map[string]*goBin{}
	}
	b := goBins.built[pkg]
	if b == nil {
		b = &goBin{}
		goBins.built[pkg] = b
	}
	goBins.mu.Unlock()
	b.once.Do(func() { b.path, b.err = buildGo(pkg) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func buildGo(pkg string) (string, error) {
	goBins.mu.Lock()
	if goBins.dir == "" {
		dir, err := os.MkdirTemp("", "broadside-test-bin-")
		if err != nil {
			goBins.mu.Unlock()
			return "", fmt.Errorf("build %s: %w", pkg, err)
		}
		goBins.dir = dir
	}
	// Each command in a folder of its own: two commands may share a name.
	dir, err := os.MkdirTemp(goBins.dir, "")
	goBins.mu.Unlock()
	if err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	bin := filepath.Join(dir, path.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	return bin, nil
}

// RemoveGoBinaries removes what GoBinary built; TestMain calls it after
// m.Run.
func RemoveGoBinaries() {
	goBins.mu.Lock()
	defer goBins.mu.Unlock()
	if goBins.dir != "" {
		os.RemoveAll(goBins.dir)
		goBins.dir = ""
	}
	goBins.built = nil
}
