// Package deploy holds the container images; its test checks that
// docker-compose.yml is a valid Compose file laid out as a fleet.
package deploy

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/testenv"
)

// compose returns the command line of Compose: the docker CLI's plugin
// when it has one, else the standalone docker-compose.
func compose(t *testing.T) []string {
	t.Helper()
	if exec.Command("docker", "compose", "version").Run() == nil {
		return []string{"docker", "compose"}
	}
	if p, err := exec.LookPath("docker-compose"); err == nil {
		return []string{p}
	}
	testenv.Require(t, "Docker Compose", false, "neither `docker compose` nor docker-compose is installed: run scripts/setup.sh --test")
	return nil
}

func run(t *testing.T, args ...string) string {
	t.Helper()
	c := compose(t)
	cmd := exec.Command(c[0], append(append(c[1:], "-f", "../docker-compose.yml"), args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return string(out)
}

func TestComposeFile(t *testing.T) {
	run(t, "config", "-q")
	services := strings.Fields(run(t, "config", "--services"))
	slices.Sort(services)
	want := []string{"migrate", "portal", "postgres", "s3", "worker-1", "worker-2"}
	if !slices.Equal(services, want) {
		t.Fatalf("services %v, want %v", services, want)
	}
	// Workers share nothing but the database and the bucket: no volume of
	// theirs but the host's cgroups, and every process's blobs in S3.
	cfg := run(t, "config")
	for _, svc := range []string{"worker-1", "worker-2", "portal"} {
		block := serviceBlock(cfg, svc)
		allowed := []string{}
		if svc != "portal" {
			allowed = []string{"/sys/fs/cgroup"}
		}
		if src := mountSources(block); !slices.Equal(src, allowed) {
			t.Errorf("%s mounts %q, want only %q:\n%s", svc, src, allowed, block)
		}
		if !strings.Contains(block, "BLOB_URL: s3://") {
			t.Errorf("%s does not keep its files in S3:\n%s", svc, block)
		}
	}
	// What the sandbox needs in a container, each found missing by running
	// the file: without one of them the workers refuse to start.
	for _, svc := range []string{"worker-1", "worker-2"} {
		block := serviceBlock(cfg, svc)
		for _, opt := range []string{"seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"} {
			if !strings.Contains(block, "- "+opt+"\n") {
				t.Errorf("%s lacks security_opt %s:\n%s", svc, opt, block)
			}
		}
	}
}

// mountSources lists the sources of a service block's volumes, in the
// short syntax docker-compose v1 prints (- /src:/dst:rw) or the long one
// of Compose v2 (source: /src).
func mountSources(block string) []string {
	var src []string
	in := false
	for _, l := range strings.Split(block, "\n") {
		if l == "    volumes:" {
			in = true
			continue
		}
		if !in {
			continue
		}
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(l, "     ") && !strings.HasPrefix(l, "    - ") {
			break
		}
		switch {
		case strings.HasPrefix(t, "source: "):
			src = append(src, strings.TrimPrefix(t, "source: "))
		case strings.HasPrefix(t, "- ") && !strings.Contains(t, ": "):
			src = append(src, strings.SplitN(strings.TrimPrefix(t, "- "), ":", 2)[0])
		}
	}
	return src
}

// serviceBlock cuts one service's lines out of `config` output.
func serviceBlock(cfg, name string) string {
	start := strings.Index(cfg, "\n  "+name+":\n")
	if start < 0 {
		return ""
	}
	rest := cfg[start+1:]
	lines := strings.SplitAfter(rest, "\n")
	var b strings.Builder
	b.WriteString(lines[0])
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "   ") {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}
