// Package deploy holds the container images and the Kubernetes manifests;
// its tests check that docker-compose.yml is a valid Compose file laid out
// as a fleet, and that the manifests are valid Kubernetes objects with the
// settings the bot sandbox needs.
package deploy

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// loadCompose loads docker-compose.yml as Compose v2 does, validating it
// against the Compose specification's schema.
func loadCompose(t *testing.T) *types.Project {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{"../docker-compose.yml"}, cli.WithName("broadside"),
		// The file's ${VAR:-default}s take their defaults, not this machine's environment.
		cli.WithEnv([]string{}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return p
}

func TestComposeFile(t *testing.T) {
	p := loadCompose(t)
	services := p.ServiceNames()
	slices.Sort(services)
	want := []string{"migrate", "portal", "postgres", "s3", "worker-1", "worker-2"}
	if !slices.Equal(services, want) {
		t.Fatalf("services %v, want %v", services, want)
	}
	// Workers share nothing but the database and the bucket: no volume of
	// theirs but the host's cgroups, and every process's blobs in S3.
	for _, name := range []string{"worker-1", "worker-2", "portal"} {
		svc := p.Services[name]
		var allowed, sources []string
		if name != "portal" {
			allowed = []string{"/sys/fs/cgroup"}
		}
		for _, v := range svc.Volumes {
			sources = append(sources, v.Source)
		}
		if !slices.Equal(sources, allowed) {
			t.Errorf("%s mounts %q, want only %q", name, sources, allowed)
		}
		if blob := svc.Environment["BLOB_URL"]; blob == nil || !strings.HasPrefix(*blob, "s3://") {
			t.Errorf("%s does not keep its files in S3: BLOB_URL %v", name, blob)
		}
	}
	// What the sandbox needs in a container, each found missing by running
	// the file: without one of them the workers refuse to start.
	for _, name := range []string{"worker-1", "worker-2"} {
		svc := p.Services[name]
		for _, opt := range []string{"seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"} {
			if !slices.Contains(svc.SecurityOpt, opt) {
				t.Errorf("%s lacks security_opt %s: %v", name, opt, svc.SecurityOpt)
			}
		}
		// On cgroup v2 the host's hierarchy mounted read-write is only
		// the worker's own view with the host's cgroup namespace: in a
		// private one its paths would not match /proc/self/cgroup.
		if svc.Cgroup != "host" {
			t.Errorf("%s: cgroup %q, want host", name, svc.Cgroup)
		}
		if len(svc.Volumes) != 1 || svc.Volumes[0].Target != "/sys/fs/cgroup" || svc.Volumes[0].ReadOnly {
			t.Errorf("%s: want /sys/fs/cgroup mounted read-write, got %+v", name, svc.Volumes)
		}
		if s := svc.Environment["SANDBOX"]; s != nil && *s != "required" {
			t.Errorf("%s: SANDBOX=%s", name, *s)
		}
	}
}
