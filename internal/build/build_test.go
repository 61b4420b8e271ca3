package build

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// runner confines builds with bubblewrap, as the worker does: a bot's
// build scripts are untrusted code.
func runner(t *testing.T) sandbox.Runner {
	t.Helper()
	testenv.RequireErr(t, "an enforced sandbox", sandbox.Require(sandbox.Probe(context.Background())))
	b, err := sandbox.NewBuildSandbox(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// copyDir copies a bot folder into a fresh temporary folder.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "bot")
	if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v %s", src, err, out)
	}
	return dst
}

func writeBot(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bot")
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestBuild builds the starters and hand-made bots of each BotType as the
// worker does. The Go reference bot is TestBuildGoSeed's, built as the
// worker builds it, with the standard library compiled in advance.
func TestBuild(t *testing.T) {
	t.Parallel()
	r := runner(t)
	b := New(r, rulesets.Registry())
	starters := "../../bots/"
	tests := []struct {
		name    string
		dir     func(t *testing.T) string
		tools   []string
		wantOK  bool
		wantLog string
		// check, when set, looks at the built folder.
		check func(t *testing.T, dir string)
	}{
		{"python starter", func(t *testing.T) string { return copyDir(t, starters+"entelect-python3") }, []string{"python3"}, true, "py_compile", nil},
		{"javascript starter", func(t *testing.T) string { return copyDir(t, starters+"entelect-javascript") }, []string{"node"}, true, "--check", nil},
		{"java starter with Makefile", func(t *testing.T) string { return copyDir(t, starters+"entelect-java") }, []string{"javac", "make"}, true, "make", nil},
		{"c++ starter with Makefile", func(t *testing.T) string { return copyDir(t, starters+"entelect-cplusplus") }, []string{"g++", "make"}, true, "g++", nil},
		{"rust starter", func(t *testing.T) string {
			dir := copyDir(t, starters+"entelect-rust")
			os.RemoveAll(filepath.Join(dir, "target")) // built here, not before
			return dir
		}, []string{"cargo"}, true, "cargo build --release --offline", leanRust("target/release/rust_sample_bot")},
		{"rust package copied to the RunFile", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"Rust","RunFile":"bin/bot"}`,
				"Cargo.toml":  "[package]\nname = \"my-bot\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
				"src/main.rs": "fn main() { println!(\"hi\"); }\n", "bin/.keep": ""})
		}, []string{"cargo"}, true, "cp 'target/release/my-bot' 'bin/bot'", leanRust("bin/bot")},
		{"rust compile error fails with the compiler's message", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"Rust","RunFile":"target/release/bot"}`,
				"Cargo.toml":  "[package]\nname = \"bot\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
				"src/main.rs": "fn main() { let x: i32 = \"text\"; }\n"})
		}, []string{"cargo"}, false, "error[E0308]: mismatched types", nil},
		{"prebuilt rust binary needs no build", func(t *testing.T) string {
			dir := writeBot(t, map[string]string{"bot.json": `{"BotType":"Rust","RunFile":"bot"}`, "bot": "#!/bin/sh\n"})
			os.Chmod(filepath.Join(dir, "bot"), 0o755)
			return dir
		}, nil, true, "Build succeeded", nil},
		{"rust bot with neither Cargo.toml nor RunFile fails", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"Rust","RunFile":"bot"}`, "main.rs": ""})
		}, nil, false, "no Cargo.toml", nil},
		{"plain c++ sources", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"CPlusPlus","RunFile":"bot"}`,
				"main.cpp": "#include <cstdio>\nint main(){std::puts(\"hi\");}\n"})
		}, []string{"g++"}, true, "-std=c++17", nil},
		{"plain java sources", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"Java","RunFile":"out/bot.jar"}`,
				"src/a/Main.java": "package a;\npublic class Main { public static void main(String[] x) { System.out.println(1); } }\n"})
		}, []string{"javac"}, true, "a.Main", nil},
		{"python syntax error fails with the compiler's message", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"Python3","RunFile":"bot.py"}`, "bot.py": "def broken(:\n"})
		}, []string{"python3"}, false, "SyntaxError", nil},
		{"c++ compile error fails", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"CPlusPlus","RunFile":"bot"}`, "main.cpp": "int main( {"})
		}, []string{"g++"}, false, "exited with status", nil},
		{"compiled bot whose build makes no RunFile fails", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"CPlusPlus","RunFile":"other"}`, "Makefile": "all:\n\techo nothing\n"})
		}, []string{"make"}, false, "RunFile other does not exist", nil},
		{"javascript package.json installs its packages from the npm registry", func(t *testing.T) string {
			dir := copyDir(t, starters+"entelect-javascript")
			os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"bot","version":"1.0.0","dependencies":{"left-pad":"1.3.0"}}`), 0o644)
			return dir
		}, []string{"node", "npm"}, true, "npm install", func(t *testing.T, dir string) {
			if _, err := os.Stat(filepath.Join(dir, "node_modules", "left-pad", "package.json")); err != nil {
				t.Errorf("left-pad not installed: %v", err)
			}
		}},
		{"c# starter with xbuild", func(t *testing.T) string {
			dir := copyDir(t, starters+"entelect-csharp")
			os.RemoveAll(filepath.Join(dir, "bin")) // built here, not before
			os.RemoveAll(filepath.Join(dir, "obj"))
			return dir
		}, []string{"mono", "xbuild"}, true, "/t:Rebuild /p:Configuration=Release StarterBot.csproj", nil},
		{"c# solution in ProjectLocation", func(t *testing.T) string {
			dir := copyDir(t, starters+"entelect-csharp")
			os.RemoveAll(filepath.Join(dir, "bin"))
			src := filepath.Join(dir, "src")
			os.MkdirAll(src, 0o755)
			for _, f := range []string{"StarterBot.csproj", "Program.cs", "State.cs", "Properties"} {
				os.Rename(filepath.Join(dir, f), filepath.Join(src, f))
			}
			os.WriteFile(filepath.Join(src, "StarterBot.sln"), []byte(starterSolution), 0o644)
			os.WriteFile(filepath.Join(dir, "bot.json"), []byte(`{"BotType":0,"ProjectLocation":"src","RunFile":"src\\bin\\Release\\StarterBot.exe"}`), 0o644)
			return dir
		}, []string{"mono", "xbuild"}, true, "/p:Platform=Any CPU StarterBot.sln", nil},
		{"c# compile error fails with the compiler's message", func(t *testing.T) string {
			dir := copyDir(t, starters+"entelect-csharp")
			os.WriteFile(filepath.Join(dir, "State.cs"), []byte("namespace StarterBot { class Broken { int x = \"text\"; } }\n"), 0o644)
			return dir
		}, []string{"mono", "xbuild"}, false, "error CS0246", nil},
		{"c# bot missing a NuGet package names it", func(t *testing.T) string {
			dir := copyDir(t, starters+"entelect-csharp")
			os.MkdirAll(filepath.Join(dir, "packages", "Shipped.Package.1.0.0"), 0o755)
			os.WriteFile(filepath.Join(dir, "packages.config"), []byte(`<?xml version="1.0" encoding="utf-8"?>
<packages>
  <package id="Shipped.Package" version="1.0.0" targetFramework="net45" />
  <package id="Newtonsoft.Json" version="10.0.3" targetFramework="net45" />
</packages>`), 0o644)
			return dir
		}, nil, false, "NuGet package(s) Newtonsoft.Json 10.0.3 are not in the bot's packages/ folder", nil},
		{"sdk-style c# project is refused with the reason", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"CSharp","RunFile":"bin/Release/net6.0/Bot.dll"}`,
				"Bot.csproj": `<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputType>Exe</OutputType></PropertyGroup></Project>`, "Program.cs": ""})
		}, nil, false, "SDK-style project", nil},
		{"c# bot with neither project nor RunFile fails", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"CSharp","RunFile":"bin\\Release\\Bot.exe"}`, "Program.cs": ""})
		}, nil, false, "no .sln or .csproj", nil},
		{"f# sources fail: no compiler", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"FSharp","RunFile":"bin\\Release\\Bot.exe"}`,
				"Bot.fsproj": "<Project/>", "Program.fs": ""})
		}, nil, false, "no F# compiler", nil},
		{"scala sources fail: no sbt", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"Scala","RunFile":"target/bot.jar"}`,
				"build.sbt": "", "src/main/scala/Bot.scala": ""})
		}, nil, false, "sbt is not available here", nil},
		{"missing ProjectLocation fails", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"Python3","RunFile":"bot.py","ProjectLocation":"nope"}`, "bot.py": ""})
		}, nil, false, "ProjectLocation", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testenv.RequireProgram(t, tc.tools...)
			dir := tc.dir(t)
			m, err := botmeta.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			res, err := b.Build(context.Background(), dir, m)
			if err != nil {
				t.Fatalf("platform error: %v", err)
			}
			if res.OK != tc.wantOK || !strings.Contains(res.Log, tc.wantLog) {
				t.Fatalf("OK=%v (want %v), log lacks %q:\n%s", res.OK, tc.wantOK, tc.wantLog, res.Log)
			}
			if tc.check != nil {
				tc.check(t, dir)
			}
		})
	}
}

// TestBuildEnv checks that the operator's settings reach the dependency
// download and only it: pip is pointed at a mirror that cannot exist.
func TestBuildEnv(t *testing.T) {
	testenv.RequireProgram(t, "python3")
	b := New(runner(t), rulesets.Registry())
	b.Env = []string{"PIP_INDEX_URL=http://mirror.invalid/simple", "PIP_RETRIES=0", "PIP_TIMEOUT=5"}
	dir := writeBot(t, map[string]string{"bot.json": `{"BotType":"Python3","RunFile":"bot.py"}`,
		"requirements.txt": "six\n", "bot.py": "import os\nprint(os.environ.get('PIP_INDEX_URL'))\n"})
	m, err := botmeta.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Build(context.Background(), dir, m)
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || !strings.Contains(res.Log, "mirror.invalid") {
		t.Fatalf("OK=%v, log does not show the mirror:\n%s", res.OK, res.Log)
	}
}

// leanRust checks that a Rust build left its RunFile, executable, and
// removed cargo's home and intermediate files.
func leanRust(runFile string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if st, err := os.Stat(filepath.Join(dir, runFile)); err != nil || st.Mode()&0o111 == 0 {
			t.Fatalf("RunFile %s: %v", runFile, err)
		}
		for _, gone := range []string{cargoHome, "target/release/deps", "target/release/build", "target/release/incremental", "target/release/.fingerprint"} {
			if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
				t.Errorf("%s left in the built bot (%v)", gone, err)
			}
		}
	}
}

func TestPackUnpack(t *testing.T) {
	src := writeBot(t, map[string]string{"bot.py": "x", "lib/a.txt": "aaa"})
	os.Chmod(filepath.Join(src, "bot.py"), 0o755)
	os.Symlink("lib/a.txt", filepath.Join(src, "inside"))
	os.Symlink("/etc/passwd", filepath.Join(src, "outside"))
	os.Symlink("../../x", filepath.Join(src, "lib", "up"))
	var buf bytes.Buffer
	if err := Pack(src, &buf); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "out")
	if err := Unpack(bytes.NewReader(buf.Bytes()), dst); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dst, "inside")); err != nil || string(got) != "aaa" {
		t.Fatalf("inside link: %q %v", got, err)
	}
	for _, gone := range []string{"outside", "lib/up"} {
		if _, err := os.Lstat(filepath.Join(dst, gone)); !os.IsNotExist(err) {
			t.Errorf("%s: link leaving the folder was packed", gone)
		}
	}
	if st, _ := os.Stat(filepath.Join(dst, "bot.py")); st.Mode()&0o100 == 0 {
		t.Error("executable bit lost")
	}
	t.Run("corrupt archive leaves nothing", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "x")
		if err := Unpack(bytes.NewReader(buf.Bytes()[:buf.Len()/2]), out); err == nil {
			t.Fatal("accepted a truncated archive")
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatal("folder left behind")
		}
	})
}

// starterSolution is a Visual Studio solution holding the C# starter's project.
const starterSolution = `Microsoft Visual Studio Solution File, Format Version 12.00
# Visual Studio 14
Project("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "StarterBot", "StarterBot.csproj", "{6B1D2C4E-5F3A-4E8B-9C7D-2A1B3C4D5E6F}"
EndProject
Global
	GlobalSection(SolutionConfigurationPlatforms) = preSolution
		Release|Any CPU = Release|Any CPU
	EndGlobalSection
	GlobalSection(ProjectConfigurationPlatforms) = postSolution
		{6B1D2C4E-5F3A-4E8B-9C7D-2A1B3C4D5E6F}.Release|Any CPU.ActiveCfg = Release|AnyCPU
		{6B1D2C4E-5F3A-4E8B-9C7D-2A1B3C4D5E6F}.Release|Any CPU.Build.0 = Release|AnyCPU
	EndGlobalSection
EndGlobal
`

// TestBuildGoCache checks GoCache, the local command's way of building a
// contestant's own Go bot on their own machine: the build uses the cache it
// names and leaves no cache of its own in the bot's folder. (Without it,
// TestBuild's Go bot builds with a cache of its own.) The bot imports
// nothing, so a fresh cache costs only the runtime's compilation.
func TestBuildGoCache(t *testing.T) {
	testenv.RequireProgram(t, "go")
	b := New(sandbox.NewHost(sandbox.HostConfig{}), rulesets.Registry())
	b.GoCache = t.TempDir()
	dir := writeBot(t, map[string]string{"bot.json": `{"BotType":"Golang","RunFile":"bot"}`,
		"go.mod": "module bot\n\ngo 1.21\n", "main.go": "package main\n\nfunc main() {}\n"})
	m, err := botmeta.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Build(context.Background(), dir, m)
	if err != nil || !res.OK {
		t.Fatalf("build: %v\n%s", err, res.Log)
	}
	if entries, _ := os.ReadDir(b.GoCache); len(entries) == 0 {
		t.Error("the build did not use the cache it was given")
	}
	for _, left := range []string{".gocache", ".gopath"} {
		if _, err := os.Stat(filepath.Join(dir, left)); err == nil {
			t.Errorf("the build left %s in the bot's folder", left)
		}
	}
}

// cacheCounter is a runner that counts the files of a Go build's cache
// (GOCACHE in the command's environment) before and after each go build.
type cacheCounter struct {
	sandbox.Runner
	before, after []int
}

func (c *cacheCounter) Run(ctx context.Context, cmd sandbox.Cmd) (sandbox.Result, error) {
	cache := ""
	for _, kv := range cmd.Env {
		if v, ok := strings.CutPrefix(kv, "GOCACHE="); ok {
			cache = v
		}
	}
	isBuild := cache != "" && len(cmd.Args) > 1 && cmd.Args[1] == "build"
	if isBuild {
		c.before = append(c.before, countFiles(cache))
	}
	r, err := c.Runner.Run(ctx, cmd)
	if isBuild {
		c.after = append(c.after, countFiles(cache))
	}
	return r, err
}

func countFiles(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// TestBuildGoSeed checks that the worker's Go builds, each in the sandbox
// with a cache of its own, start from the standard library compiled once:
// the seed is made by the first build, and a bot's build then compiles
// its own package and links, adding a few files to its cache instead of
// the hundreds the standard library takes.
func TestBuildGoSeed(t *testing.T) {
	t.Parallel()
	testenv.RequireProgram(t, "go")
	counter := &cacheCounter{Runner: runner(t)}
	b := New(counter, rulesets.Registry())
	b.GoSeed = NewGoSeed(t.TempDir(), nil)
	for i := range 2 {
		dir := copyDir(t, "../../bots/entelect-go-reference")
		m, err := botmeta.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Build(context.Background(), dir, m)
		if err != nil || !res.OK || !strings.Contains(res.Log, "go build -o bot .") {
			t.Fatalf("build %d: %v\n%s", i+1, err, res.Log)
		}
		if _, err := os.Stat(filepath.Join(dir, "bot")); err != nil {
			t.Errorf("build %d: no RunFile: %v", i+1, err)
		}
		if _, err := os.Stat(filepath.Join(dir, ".gocache")); err == nil {
			t.Errorf("build %d left its cache in the bot's folder", i+1)
		}
	}
	// The seed's own build, then the bots'.
	if len(counter.before) != 3 {
		t.Fatalf("%d go builds, want the seed's and two bots'", len(counter.before))
	}
	seedFiles := counter.after[0]
	if counter.before[0] != 0 || seedFiles < 100 {
		t.Fatalf("the seed's build went from %d to %d cache files", counter.before[0], seedFiles)
	}
	for i := 1; i < 3; i++ {
		if counter.before[i] != seedFiles {
			t.Errorf("bot build %d started with %d cache files, want the seed's %d", i, counter.before[i], seedFiles)
		}
		if added := counter.after[i] - counter.before[i]; added > 20 {
			t.Errorf("bot build %d added %d files to its cache: the seed's standard library did not serve it", i, added)
		}
	}

	// A bot that brings a cache of its own builds with it, unseeded (one
	// that imports nothing: only the runtime is compiled).
	dir := writeBot(t, map[string]string{"bot.json": `{"BotType":"Golang","RunFile":"bot"}`,
		"go.mod": "module bot\n\ngo 1.21\n", "main.go": "package main\n\nfunc main() {}\n", ".gocache/README": "mine\n"})
	m, err := botmeta.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := b.Build(context.Background(), dir, m); err != nil || !res.OK {
		t.Fatalf("build with its own cache: %v\n%s", err, res.Log)
	}
	if got := counter.before[len(counter.before)-1]; got != 1 {
		t.Errorf("a bot's own cache of one file started its build with %d files", got)
	}
}
