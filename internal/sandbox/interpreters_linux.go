//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
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
func interpreterEtcFiles() []string {
	var out []string
	for _, g := range interpreterEtcGlobs {
		matches, _ := filepath.Glob(g)
		out = append(out, matches...)
	}
	return out
}

// programsRoot is ProgramsRoot, created when missing so that a sandbox made
// before the first link folder still sees the ones made later.
func programsRoot() string {
	root := ProgramsRoot()
	_ = os.MkdirAll(root, 0o755)
	return root
}
