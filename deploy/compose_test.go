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
	// theirs, and every process's blobs in S3.
	cfg := run(t, "config")
	for _, svc := range []string{"worker-1", "worker-2", "portal"} {
		block := serviceBlock(cfg, svc)
		if strings.Contains(block, "\n    volumes:") {
			t.Errorf("%s mounts a volume:\n%s", svc, block)
		}
		if !strings.Contains(block, "BLOB_URL: s3://") {
			t.Errorf("%s does not keep its files in S3:\n%s", svc, block)
		}
	}
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
