//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// interpreterEtcGlobs are the configuration of /etc the interpreters a bot
// may name read at start-up (Perl's and Python's site settings, php.ini and
// its modules, the public certificates TLS libraries load even offline),
// so that they behave inside as they do outside. Nothing secret: no
// private keys.
var interpreterEtcGlobs = []string{
	"/etc/perl", "/etc/php", "/etc/python2*", "/etc/python3*", "/etc/ruby*", "/etc/gemrc",
	"/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/ca-certificates.conf",
	"/etc/timezone",
}

// interpreterEtcFiles returns the interpreter configuration present here.
// Every bot turn asks, twice (its mounts, and whether its program is
// shown), and each glob reads /etc: the answer is kept for
// interpreterEtcFresh, so an interpreter installed while the worker runs
// is shown from its next turns on.
func interpreterEtcFiles() []string {
	etcCache.mu.Lock()
	defer etcCache.mu.Unlock()
	if etcCache.files != nil && time.Since(etcCache.at) < interpreterEtcFresh {
		return etcCache.files
	}
	out := []string{}
	for _, g := range interpreterEtcGlobs {
		matches, _ := filepath.Glob(g)
		out = append(out, matches...)
	}
	// Callers append to it: the kept slice has no room to share.
	etcCache.files, etcCache.at = slices.Clip(out), time.Now()
	return etcCache.files
}

// interpreterEtcFresh is how long interpreterEtcFiles keeps its answer.
const interpreterEtcFresh = 10 * time.Second

var etcCache struct {
	mu    sync.Mutex
	files []string
	at    time.Time
}

// programsRoot is ProgramsRoot, created when missing so that a sandbox made
// before the first link folder still sees the ones made later.
func programsRoot() string {
	root := ProgramsRoot()
	_ = os.MkdirAll(root, 0o755)
	return root
}
