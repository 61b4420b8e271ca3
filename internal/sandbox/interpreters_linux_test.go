//go:build linux

package sandbox

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestInterpreterEtcFilesKept: the interpreter configuration found is
// what the globs match, kept for a while, then read again.
func TestInterpreterEtcFilesKept(t *testing.T) {
	var want []string
	for _, g := range interpreterEtcGlobs {
		m, _ := filepath.Glob(g)
		want = append(want, m...)
	}
	etcCache.mu.Lock()
	etcCache.files = nil
	etcCache.mu.Unlock()
	first := interpreterEtcFiles()
	if !slices.Equal(first, want) {
		t.Fatalf("got %q, want %q", first, want)
	}
	// A kept answer is recognisable: replace it with a marker.
	etcCache.mu.Lock()
	etcCache.files = []string{"/etc/kept"}
	etcCache.mu.Unlock()
	if got := interpreterEtcFiles(); !slices.Equal(got, []string{"/etc/kept"}) {
		t.Fatalf("within %s: got %q, want the kept answer", interpreterEtcFresh, got)
	}
	etcCache.mu.Lock()
	etcCache.at = time.Now().Add(-interpreterEtcFresh)
	etcCache.mu.Unlock()
	if got := interpreterEtcFiles(); !slices.Equal(got, want) {
		t.Fatalf("after %s: got %q, want %q read again", interpreterEtcFresh, got, want)
	}
}
