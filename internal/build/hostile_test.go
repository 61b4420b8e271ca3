package build

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// debianMavenRepo is Debian's system Maven repository, filled by its
// plugin packages (scripts/setup.sh): the tests' Maven mirror, which the
// sandbox sees under /usr and which needs no network.
const debianMavenRepo = "file:///usr/share/maven-repo"

// hostileMarker is the file the payloads of testdata/hostile append to.
const hostileMarker = "hostile-ran.txt"

// TestHostileBotsRunNothingWithNetwork builds, in the sandbox, one bot per
// toolchain with a download step that plants what the tool would start if
// it ran in the bot's folder (testdata/hostile/README.md). First, as a
// control, the tool is started the way that was once done, in a copy of
// the bot's folder with the network: the payload runs there, so it is a
// real one. Then the real build: the payload must never run in the step
// with the network, in the bot's folder or in the download's own.
func TestHostileBotsRunNothingWithNetwork(t *testing.T) {
	t.Parallel()
	r := runner(t)
	rt := botexec.NewRuntimes()
	find := func(t *testing.T, lang, prog string) string {
		t.Helper()
		p, err := rt.Find(lang, prog)
		if err != nil {
			t.Fatalf("%v (scripts/setup.sh installs the toolchains)", err)
		}
		return p
	}
	cases := []struct {
		name  string
		tools []string
		// extra prepares the copied bot folder further.
		extra func(t *testing.T, dir string)
		// control starts the tool in the bot's own folder (dir); nil where
		// no way is known to make the tool start anything there.
		control func(t *testing.T, dir string) sandbox.Cmd
		env     []string
		// wantOK and wantLog describe the real build's outcome.
		wantOK  bool
		wantLog string
		// ranOffline: the payload runs in the build's offline steps,
		// which may run the bot's code.
		ranOffline bool
	}{
		{
			name: "pip", tools: []string{"python3"},
			control: func(t *testing.T, dir string) sandbox.Cmd {
				return sandbox.Cmd{Args: []string{find(t, "Python3", "python3"), "-m", "pip", "download", "--no-cache-dir",
					"--only-binary=:all:", "--dest", ".pip-downloads", "-r", "requirements.txt"}}
			},
			// setuptools from Debian's wheels: a download that succeeds here.
			env:    []string{"PIP_NO_INDEX=1", "PIP_FIND_LINKS=/usr/share/python-wheels"},
			wantOK: true, wantLog: "Saved ./.pip-downloads/setuptools", ranOffline: true,
		},
		{
			name: "npm", tools: []string{"node", "npm"},
			control: func(t *testing.T, dir string) sandbox.Cmd {
				return sandbox.Cmd{Args: []string{find(t, "JavaScript", "npm"), "install", "--no-audit", "--no-fund", "--cache", "/tmp/npm-cache"}}
			},
			wantOK: true, wantLog: "added 1 package", ranOffline: true,
		},
		{
			name: "cargo", tools: []string{"cargo"},
			control: func(t *testing.T, dir string) sandbox.Cmd {
				return sandbox.Cmd{Args: []string{find(t, "Rust", "cargo"), "fetch"},
					Env: cargoEnv(filepath.Join(dir, cargoHome), find(t, "Rust", "rustc"))}
			},
			wantOK: true, wantLog: "Build succeeded", ranOffline: true,
		},
		{
			name: "go", tools: []string{"go", "git"},
			extra: func(t *testing.T, dir string) {
				// A git hook in the bot's repository, for any git command
				// run in its folder (VCS stamping, a VCS download).
				for name, body := range map[string]string{
					".git/HEAD":   "ref: refs/heads/main\n",
					".git/config": "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = ./hostile.sh\n[safe]\n\tdirectory = *\n",
				} {
					os.MkdirAll(filepath.Join(dir, filepath.Dir(name), "refs", "heads"), 0o755)
					os.MkdirAll(filepath.Join(dir, ".git", "objects"), 0o755)
					if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			},
			wantOK: true, wantLog: "Build succeeded",
		},
		{
			name: "maven-mvn", tools: []string{"mvn", "javac"},
			extra: func(t *testing.T, dir string) {
				plantMavenExtension(t, dir)
				copyStarter(t, dir)
			},
			control: func(t *testing.T, dir string) sandbox.Cmd {
				return sandbox.Cmd{Args: []string{find(t, "Java", "mvn"), "-B", "-q", "validate"}}
			},
			env:     []string{"MAVEN_MIRROR=" + debianMavenRepo},
			wantLog: "Maven downloads with the network in a fresh folder holding copies of pom.xml;",
		},
		{
			name: "maven-pom", tools: []string{"mvn", "javac"},
			extra: func(t *testing.T, dir string) {
				plantMavenExtension(t, dir)
				copyStarter(t, dir)
			},
			control: func(t *testing.T, dir string) sandbox.Cmd {
				return sandbox.Cmd{Args: []string{find(t, "Java", "mvn"), "-B", "-q", "-Dmaven.repo.local=/tmp/m2", "validate"}}
			},
			env:     []string{"MAVEN_MIRROR=" + debianMavenRepo},
			wantLog: "<build><extensions> are not supported",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			testenv.RequireProgram(t, tc.tools...)
			bot := func() string {
				dir := copyDir(t, filepath.Join("testdata", "hostile", tc.name))
				if err := copyFile(filepath.Join("testdata", "hostile", "hostile.sh"), filepath.Join(dir, "hostile.sh")); err != nil {
					t.Fatal(err)
				}
				os.Chmod(filepath.Join(dir, "hostile.sh"), 0o755)
				if tc.extra != nil {
					tc.extra(t, dir)
				}
				return dir
			}
			if tc.control != nil {
				dir := bot()
				c := tc.control(t, dir)
				c.Dir, c.Network, c.Limits = dir, true, DefaultLimits()
				c.Mounts = []sandbox.Mount{{Source: dir, Writable: true}}
				res, err := r.Run(context.Background(), c)
				if err != nil {
					t.Fatal(err)
				}
				if got := markers(t, dir); !strings.Contains(got, "network") {
					t.Fatalf("control: the payload did not run where %s ran in the bot's folder with the network (markers %q):\n%s%s",
						c.Args[0], got, res.Stdout, res.Stderr)
				}
			}

			dir := bot()
			b := New(r, rulesets.Registry())
			b.Env = tc.env
			var fetched []string
			b.inspectFetch = func(root string) { fetched = append(fetched, markers(t, root)) }
			m, err := botmeta.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			res, err := b.Build(ctx, dir, m)
			if err != nil {
				t.Fatalf("platform error: %v", err)
			}
			t.Logf("build log:\n%s", res.Log)
			for _, got := range append(fetched, markers(t, dir)) {
				if strings.Contains(got, "network") {
					t.Errorf("the payload ran with the network (markers %q)", got)
				}
			}
			if strings.Contains(res.Log, "hostile code ran (network)") {
				t.Error("the build log shows the payload running with the network")
			}
			if tc.wantLog != "" && !strings.Contains(res.Log, tc.wantLog) {
				t.Errorf("build log lacks %q", tc.wantLog)
			}
			if tc.wantOK && !res.OK {
				t.Error("build failed")
			}
			if tc.ranOffline && !strings.Contains(markers(t, dir), "offline") {
				t.Error("the payload never ran, not even offline: the test shows nothing")
			}
		})
	}
}

// markers reads every payload marker under dir, one line per run.
func markers(t *testing.T, dir string) string {
	t.Helper()
	var out strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == hostileMarker {
			data, _ := os.ReadFile(p)
			out.Write(data)
		}
		return nil
	})
	return out.String()
}

// plantMavenExtension compiles testdata/hostile/maven-payload into a Maven
// repository in dir/repo, where the hostile Maven bots point Maven.
func plantMavenExtension(t *testing.T, dir string) {
	t.Helper()
	src := filepath.Join("testdata", "hostile", "maven-payload")
	classes := t.TempDir()
	javaFiles, _ := filepath.Glob(filepath.Join(src, "hostile", "*.java"))
	// Java 8 class files: Debian's Maven reads older ones only when it
	// looks for components.
	run(t, "", append([]string{"javac", "--release", "8", "-nowarn", "-d", classes, "-cp", "/usr/share/maven/lib/*"}, javaFiles...)...)
	os.MkdirAll(filepath.Join(classes, "META-INF", "sisu"), 0o755)
	if err := os.WriteFile(filepath.Join(classes, "META-INF", "sisu", "javax.inject.Named"), []byte("hostile.Payload\nhostile.Spy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "repo", "hostile", "payload", "1.0")
	os.MkdirAll(repo, 0o755)
	run(t, "", "jar", "cf", filepath.Join(repo, "payload-1.0.jar"), "-C", classes, ".")
	if err := copyFile(filepath.Join(src, "pom.xml"), filepath.Join(repo, "payload-1.0.pom")); err != nil {
		t.Fatal(err)
	}
	// Maven adds plexus-utils 1.1 to a build extension's dependencies.
	utils := filepath.Join(dir, "repo", "org", "codehaus", "plexus", "plexus-utils", "1.1")
	os.MkdirAll(utils, 0o755)
	if err := copyFile("/usr/share/maven/lib/plexus-utils.jar", filepath.Join(utils, "plexus-utils-1.1.jar")); err != nil {
		t.Fatal(err)
	}
	pom := "<project><modelVersion>4.0.0</modelVersion><groupId>org.codehaus.plexus</groupId><artifactId>plexus-utils</artifactId><version>1.1</version></project>\n"
	if err := os.WriteFile(filepath.Join(utils, "plexus-utils-1.1.pom"), []byte(pom), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyStarter copies the Java starter's sources into dir/src, where the
// Maven bots' poms find them.
func copyStarter(t *testing.T, dir string) {
	t.Helper()
	if err := os.CopyFS(filepath.Join(dir, "src"), os.DirFS("../../bots/entelect-java/src")); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
