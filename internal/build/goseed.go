package build

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/broadside/broadside/internal/sandbox"
)

// GoSeed is a Go build cache holding the standard library packages that
// bots commonly import, compiled once by the platform and copied into the
// fresh cache of each Go build: the build then compiles the bot's own
// packages only (about 0.3 s of CPU for the Go reference bot instead of 11
// s). The seed is made the way a bot is built, in the sandbox with the same
// go command and settings, but from the platform's own program, so no
// bot's code or files ever reach it; each build gets a copy of its own,
// and what one build writes in its cache reaches no other.
type GoSeed struct {
	root string
	log  *slog.Logger

	mu sync.Mutex
	// made maps a go command to its seed cache, "" where it could not be
	// made (not tried again: the builds go on without a seed).
	made map[string]string
}

// NewGoSeed returns a seed kept under root, a folder the caller removes
// when done; nothing is made before the first Go build. A seed that cannot
// be made is reported to log.
func NewGoSeed(root string, log *slog.Logger) *GoSeed {
	return &GoSeed{root: root, log: log, made: map[string]string{}}
}

// seedImports are the packages the seed compiles, and with them everything
// they import: what the starters and typical bots of the four games use.
var seedImports = []string{
	"bufio", "bytes", "encoding/json", "errors", "fmt", "hash/fnv", "io", "maps", "math", "math/rand",
	"math/rand/v2", "os", "path/filepath", "slices", "sort", "strconv", "strings", "time", "unicode",
}

// cache returns the seed cache for gobin, making it with b's runner on
// first use; "" when there is none (a seed that cannot be made is logged).
func (s *GoSeed) cache(ctx context.Context, b *Builder, gobin string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if dir, ok := s.made[gobin]; ok {
		return dir
	}
	dir, err := s.make(ctx, b, gobin)
	if ctx.Err() != nil {
		return "" // tried again by the next build
	}
	if err != nil && s.log != nil {
		s.log.Warn("Go builds go on without the standard library compiled in advance", "go", gobin, "err", err)
	}
	s.made[gobin] = dir
	return dir
}

// make builds the seed program in the sandbox and keeps its build cache.
func (s *GoSeed) make(ctx context.Context, b *Builder, gobin string) (string, error) {
	if err := os.MkdirAll(s.root, 0o755); err != nil {
		return "", fmt.Errorf("go seed: %w", err)
	}
	work, err := os.MkdirTemp(s.root, "make-")
	if err != nil {
		return "", fmt.Errorf("go seed: %w", err)
	}
	defer os.RemoveAll(work)
	var src strings.Builder
	src.WriteString("// The standard library packages bots commonly import.\npackage main\n\nimport (\n")
	for _, p := range seedImports {
		fmt.Fprintf(&src, "\t_ %q\n", p)
	}
	src.WriteString(")\n\nfunc main() {}\n")
	files := map[string]string{"go.mod": "module seed\n\ngo 1.22\n", "main.go": src.String()}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			return "", fmt.Errorf("go seed: %w", err)
		}
	}
	res, err := b.Runner.Run(ctx, sandbox.Cmd{
		Args:   []string{gobin, "build", "-o", "seed", "."},
		Dir:    work,
		Env:    goEnv(work),
		Mounts: []sandbox.Mount{{Source: work, Writable: true}},
		Limits: b.Limits,
	})
	if err != nil {
		return "", fmt.Errorf("go seed: %w", err)
	}
	if why := failure(res); why != "" {
		return "", fmt.Errorf("go seed: go build %s: %s%s", why, res.Stdout, res.Stderr)
	}
	dir := filepath.Join(s.root, fmt.Sprintf("cache-%d", len(s.made)))
	if err := os.Rename(filepath.Join(work, ".gocache"), dir); err != nil {
		return "", fmt.Errorf("go seed: %w", err)
	}
	return dir, nil
}

// seedGoCache copies the seed for gobin into the build cache cache (the
// bot's own, not there yet). Without a seed, or with a cache the bot brought
// in its upload, the build starts from what it has.
func (b *Builder) seedGoCache(ctx context.Context, gobin, cache string) error {
	if b.GoSeed == nil || b.GoCache != "" {
		return nil
	}
	if _, err := os.Lstat(cache); err == nil {
		return nil
	}
	seed := b.GoSeed.cache(ctx, b, gobin)
	if seed == "" {
		// The build compiles everything itself, as without a seed (the
		// seed said why); only an ended context stops it.
		return ctx.Err()
	}
	if err := os.CopyFS(cache, os.DirFS(seed)); err != nil {
		os.RemoveAll(cache)
		return fmt.Errorf("copy the Go build cache's seed: %w", err)
	}
	return nil
}
