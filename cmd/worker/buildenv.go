package main

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parseBuildEnv reads BUILD_ENV: NAME=VALUE words given to the dependency
// steps of builds, for package mirrors. The egress proxy's settings
// (including MAVEN_OPTS, which carries them), PATH and HOME stay the
// sandbox's. Its errors follow the variable's name (config.Parse).
func parseBuildEnv(v string) ([]string, error) {
	var out []string
	for _, word := range strings.Fields(v) {
		name, value, ok := strings.Cut(word, "=")
		if !ok || !envName.MatchString(name) {
			return nil, fmt.Errorf("wants NAME=VALUE words separated by spaces, got %q", word)
		}
		switch upper := strings.ToUpper(name); {
		case upper == "PATH" || upper == "HOME" || upper == "MAVEN_OPTS" || strings.HasSuffix(upper, "_PROXY") ||
			strings.HasPrefix(upper, "BROADSIDE_"):
			return nil, fmt.Errorf("may not set %s: the sandbox sets it", name)
		case name == "MAVEN_MIRROR":
			if err := checkMavenMirror(value); err != nil {
				return nil, err
			}
		}
		out = append(out, word)
	}
	return out, nil
}

// checkMavenMirror accepts the URL of a Maven repository: on the web, or
// a folder the build sandbox shows (under /usr).
func checkMavenMirror(v string) error {
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return fmt.Errorf("MAVEN_MIRROR is not a URL: %v", err)
	case (u.Scheme == "https" || u.Scheme == "http") && u.Host != "":
		return nil
	case u.Scheme == "file" && strings.HasPrefix(path.Clean(u.Path)+"/", "/usr/") && u.Host == "":
		return nil
	}
	return fmt.Errorf("MAVEN_MIRROR must be an http(s) URL or a file:///usr/… folder, got %q", v)
}
