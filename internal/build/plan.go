package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/broadside/broadside/internal/botmeta"
)

// plan lists the commands that build the bot in work, by BotType and by the
// build files present. Programs are resolved first, so a runtime missing
// on the platform is a clear build failure.
func (b *Builder) plan(work string, m botmeta.Manifest) ([]step, error) {
	if steps, handled, err := b.planOriginal(work, m); handled {
		return steps, err
	}
	switch m.BotType {
	case botmeta.Python3, botmeta.Python2:
		return b.pythonSteps(work, m)
	case botmeta.JavaScript:
		return b.javaScriptSteps(work, m)
	case botmeta.Java, botmeta.Scala:
		return b.jvmSteps(work, m)
	case botmeta.CPlusPlus:
		return b.cppSteps(work, m)
	case botmeta.Golang:
		return b.goSteps(work, m)
	case botmeta.Rust:
		return b.rustSteps(work, m)
	case botmeta.Executable:
		return []step{{args: []string{"/bin/chmod", "+x", filepath.FromSlash(m.RunFile)}}}, nil
	}
	// Nothing to build (Julia, prebuilt .NET): the launch check at the end
	// says whether the bot can run.
	return nil, nil
}

// find resolves the first of programs this machine has for m's BotType.
func (b *Builder) find(m botmeta.Manifest, programs ...string) (string, error) {
	return b.Runtimes.Find(m.BotType.String(), programs...)
}

// pythonSteps installs requirements.txt, if any, and compiles the RunFile
// so a syntax error fails the build rather than the first match.
func (b *Builder) pythonSteps(work string, m botmeta.Manifest) ([]step, error) {
	py, err := b.find(m, map[botmeta.BotType]string{botmeta.Python3: "python3", botmeta.Python2: "python2"}[m.BotType])
	if err != nil {
		return nil, err
	}
	var steps []step
	if fileExists(work, "requirements.txt") {
		if err := checkRequirements(filepath.Join(work, "requirements.txt")); err != nil {
			return nil, err
		}
		// Wheels only, with the network: a source distribution (even a
		// local one named in requirements.txt) would run its setup.py
		// there. python -I puts neither the working folder nor PYTHON*
		// variables on the path, and the folder holds requirements.txt
		// alone, so no module of the bot can stand in for pip's. Then
		// installed from those files without the network, into the bot
		// folder itself: it is the script's folder, first on sys.path,
		// so imports work without any setting.
		steps = append(steps,
			step{fetch: &fetch{tool: "pip", manifests: []string{"requirements.txt"}, results: []string{pipDownloads},
				command: func(root string) ([]string, []string) {
					return []string{py, "-I", "-m", "pip", "download", "--no-cache-dir", "--disable-pip-version-check", "--no-input",
						"--only-binary=:all:", "--dest", pipDownloads, "-r", "requirements.txt"}, nil
				}}},
			step{args: []string{py, "-m", "pip", "install", "--no-cache-dir", "--disable-pip-version-check", "--no-input",
				"--no-index", "--find-links", pipDownloads, "--target", ".", "-r", "requirements.txt"}},
			step{args: []string{"/bin/rm", "-rf", pipDownloads}})
	}
	return append(steps, step{args: []string{py, "-m", "py_compile", filepath.FromSlash(m.RunFile)}}), nil
}

// javaScriptSteps installs package.json's dependencies, if any, and checks
// the RunFile's syntax.
func (b *Builder) javaScriptSteps(work string, m botmeta.Manifest) ([]step, error) {
	node, err := b.find(m, "node", "nodejs")
	if err != nil {
		return nil, err
	}
	var steps []step
	if fileExists(work, "package.json") {
		npm, err := b.find(m, "npm")
		if err != nil {
			return nil, err
		}
		// Packages are fetched with the network and no script run (the
		// bot's own package.json and its dependencies' install scripts
		// are contestant code), in a folder holding the manifests alone:
		// no .npmrc of the bot can name a program or a registry there.
		// The scripts run afterwards, in the bot's folder, without it.
		// --git on the command line all the same: npm runs git for git
		// dependencies.
		install := []string{npm, "install", "--ignore-scripts", "--git", "/usr/bin/git", "--omit=dev", "--no-audit", "--no-fund",
			"--update-notifier=false", "--cache", "/tmp/npm-cache"}
		if fileExists(work, "package-lock.json") || fileExists(work, "npm-shrinkwrap.json") {
			install[1] = "ci"
		}
		steps = append(steps,
			step{fetch: &fetch{tool: "npm", manifests: []string{"package.json", "package-lock.json", "npm-shrinkwrap.json"},
				results: []string{"node_modules"},
				command: func(string) ([]string, []string) { return install, nil }}},
			step{args: []string{npm, "rebuild", "--offline", "--omit=dev", "--no-audit", "--no-fund", "--cache", "/tmp/npm-cache"}})
	}
	return append(steps, step{args: []string{node, "--check", filepath.FromSlash(m.RunFile)}}), nil
}

// jvmSteps builds a Java or Scala bot with Maven, its Makefile, or from
// plain .java sources.
func (b *Builder) jvmSteps(work string, m botmeta.Manifest) ([]step, error) {
	switch {
	case fileExists(work, "pom.xml"):
		return b.mavenSteps(work, m)
	case fileExists(work, "Makefile") || fileExists(work, "makefile"):
		return b.makeSteps()
	}
	return b.javaSources(work, m)
}

// cppSteps builds a C++ bot with its Makefile, with CMake, or by compiling
// every source file into the RunFile.
func (b *Builder) cppSteps(work string, m botmeta.Manifest) ([]step, error) {
	switch {
	case fileExists(work, "Makefile") || fileExists(work, "makefile"):
		return b.makeSteps()
	case fileExists(work, "CMakeLists.txt"):
		cmake, err := b.find(m, "cmake")
		if err != nil {
			return nil, err
		}
		return []step{
			{args: []string{cmake, "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"}},
			{args: []string{cmake, "--build", "build", "--parallel", "2"}},
			// The RunFile is usually the target's name in build/.
			{args: []string{"/bin/sh", "-c", fmt.Sprintf("test -e %[1]s || cp build/%[2]s %[1]s", shellQuote(m.RunFile), shellQuote(path.Base(m.RunFile)))}},
		}, nil
	}
	gpp, err := b.find(m, "g++", "clang++")
	if err != nil {
		return nil, err
	}
	srcs := sources(work, ".cpp", ".cc", ".cxx")
	if len(srcs) == 0 {
		return nil, fmt.Errorf("no Makefile, CMakeLists.txt or .cpp sources to build %s from", m.RunFile)
	}
	return []step{{args: append([]string{gpp, "-std=c++17", "-O2", "-o", filepath.FromSlash(m.RunFile)}, srcs...)}}, nil
}

// goEnv is the environment of a Go build in root: caches in the bot folder
// (the sandbox's /tmp is small), removed after the build so the artifact
// stays lean. GOENV=off: no configuration file but the platform's
// settings.
func goEnv(root string) []string {
	return []string{"GOCACHE=" + filepath.Join(root, ".gocache"), "GOPATH=" + filepath.Join(root, ".gopath"),
		"GOFLAGS=-buildvcs=false -modcacherw", "GOTOOLCHAIN=local", "CGO_ENABLED=0", "GOENV=off"}
}

// goSteps fetches a Go module's dependencies with the network (making a
// module first when the bot has no go.mod) and builds it offline. A bot
// with a vendor folder needs no download.
func (b *Builder) goSteps(work string, m botmeta.Manifest) ([]step, error) {
	gobin, err := b.find(m, "go")
	if err != nil {
		return nil, err
	}
	env := goEnv(work)
	var steps []step
	if !fileExists(work, "go.mod") {
		steps = append(steps, step{args: []string{gobin, "mod", "init", "bot"}, env: env})
	}
	if !fileExists(work, filepath.Join("vendor", "modules.txt")) {
		// go.mod files of local replacements (replace x => ./x) come
		// along: the module graph needs their requirements. GOWORK=off:
		// a go.work would name folders the download does not have.
		steps = append(steps, step{fetch: &fetch{tool: "go", manifests: []string{"go.mod", "go.sum"},
			results: []string{".gopath", "go.sum"},
			command: func(root string) ([]string, []string) {
				return []string{gobin, "mod", "download"}, append(goEnv(root), "GOWORK=off")
			}}})
	}
	buildEnv := env
	if b.GoCache != "" {
		buildEnv = nil
		for _, kv := range env {
			if !strings.HasPrefix(kv, "GOCACHE=") {
				buildEnv = append(buildEnv, kv)
			}
		}
		buildEnv = append(buildEnv, "GOCACHE="+b.GoCache)
	}
	return append(steps,
		step{args: []string{gobin, "build", "-o", filepath.FromSlash(m.RunFile), "."}, env: buildEnv,
			prepare: func(ctx context.Context) error { return b.seedGoCache(ctx, gobin, filepath.Join(work, ".gocache")) }},
		step{args: []string{"/bin/rm", "-rf", ".gocache", ".gopath"}},
	), nil
}

// requirementLine is a requirements.txt line pip may fetch without running
// anything of the bot: a package name from the index, with extras,
// version specifiers and an environment marker.
var requirementLine = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?\s*(\[[A-Za-z0-9._,\s-]*\])?\s*([<>=!~][^@/\\]*)?(;[^@/\\]*)?$`)

// checkRequirements refuses requirements.txt lines that are not package
// names: a local path or URL (pip would run its setup.py during the step
// that has the network), or an option (-e, -r, --index-url, ...). A local
// package can be copied into the bot folder instead, where it is imported
// as it is.
func checkRequirements(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read requirements.txt: %w", err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if c := strings.Index(line, " #"); c >= 0 {
			line = line[:c]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !requirementLine.MatchString(line) {
			return fmt.Errorf("requirements.txt line %d (%q): only package names from PyPI, with versions, can be installed; "+
				"local paths, URLs and options are refused because they would run code while the build has the network "+
				"(copy a local package into the bot folder instead)", i+1, line)
		}
	}
	return nil
}

// pipDownloads holds the wheels of a Python build between its download
// and its install.
const pipDownloads = ".pip-downloads"

// cargoHome holds cargo's registry and downloads during a Rust build, in
// the bot folder because the sandbox's /tmp is small. Not ".cargo", which
// is where a bot keeps its own cargo configuration.
const cargoHome = ".cargo-home"

// rustSteps builds a Cargo package: dependencies are fetched with the
// network, then compiled offline; the binary is copied to the RunFile and
// cargo's intermediate files are removed so the stored bot stays lean.
func (b *Builder) rustSteps(work string, m botmeta.Manifest) ([]step, error) {
	manifest, err := os.ReadFile(filepath.Join(work, "Cargo.toml"))
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(work, filepath.FromSlash(m.RunFile))); err == nil {
			return nil, nil // a prebuilt binary
		}
		return nil, fmt.Errorf("no Cargo.toml to build %s from, and no prebuilt %[1]s", m.RunFile)
	}
	if err != nil {
		return nil, fmt.Errorf("read Cargo.toml: %w", err)
	}
	cargo, err := b.Runtimes.Find("Rust", "cargo")
	if err != nil {
		return nil, err
	}
	rustc, err := b.Runtimes.Find("Rust", "rustc")
	if err != nil {
		return nil, err
	}
	// The binary is named after the package unless a [[bin]] says
	// otherwise; then the bot's RunFile must name it.
	name := path.Base(m.RunFile)
	if pm := cargoPackageName.FindSubmatch(cargoPackageSection(manifest)); pm != nil {
		name = string(pm[1])
	}
	release := filepath.Join("target", "release")
	var steps []step
	if !cargoVendored(work) {
		// A folder of the bot's Cargo.toml and Cargo.lock files, with
		// empty stand-ins for the targets cargo looks for: neither the
		// bot's .cargo/config.toml (which can name a rustc wrapper, a
		// runner or a credential provider) nor its .cargo-home is there.
		// Harmless without dependencies: it writes Cargo.lock and needs
		// no network.
		steps = append(steps, step{fetch: &fetch{tool: "cargo", manifests: []string{"Cargo.toml", "Cargo.lock"},
			stubs: []string{"src/main.rs", "src/lib.rs"}, results: []string{cargoHome, "Cargo.lock"},
			command: func(root string) ([]string, []string) {
				return []string{cargo, "fetch"}, cargoEnv(filepath.Join(root, cargoHome), rustc)
			}}})
	}
	return append(steps,
		step{args: []string{cargo, "build", "--release", "--offline", "--jobs", "2"}, env: cargoEnv(filepath.Join(work, cargoHome), rustc)},
		step{args: []string{"/bin/sh", "-c", fmt.Sprintf("test -e %[1]s || cp %[2]s %[1]s",
			shellQuote(m.RunFile), shellQuote(path.Join("target/release", name)))}},
		step{args: []string{"/bin/rm", "-rf", cargoHome, filepath.Join(release, "deps"), filepath.Join(release, "build"),
			filepath.Join(release, "incremental"), filepath.Join(release, ".fingerprint")}},
	), nil
}

// cargoEnv is cargo's environment with its home at home. cargo runs rustc
// by name, which would find the rustup proxy, which does not work in the
// sandbox: RUSTC names the compiler itself.
func cargoEnv(home, rustc string) []string {
	return []string{"CARGO_HOME=" + home, "RUSTC=" + rustc, "CARGO_TERM_COLOR=never"}
}

// cargoSource finds a [source.…] table in a cargo configuration.
var cargoSource = regexp.MustCompile(`(?m)^\s*\[source\.`)

// cargoVendored says whether the bot replaces crates.io with a source of
// its own in .cargo/config.toml (cargo vendor's advice): its build needs
// no download, and one from crates.io could fail where the worker cannot
// reach it.
func cargoVendored(work string) bool {
	for _, name := range []string{"config.toml", "config"} {
		data, err := os.ReadFile(filepath.Join(work, ".cargo", name))
		if err == nil && cargoSource.Match(data) {
			return true
		}
	}
	return false
}

var (
	cargoPackageName  = regexp.MustCompile(`(?m)^\s*name\s*=\s*["']([^"']+)["']`)
	cargoPackageTable = regexp.MustCompile(`(?m)^\s*\[package\]\s*$`)
	tomlTable         = regexp.MustCompile(`(?m)^\s*\[`)
)

// cargoPackageSection returns the [package] table of a Cargo.toml.
func cargoPackageSection(manifest []byte) []byte {
	start := cargoPackageTable.FindIndex(manifest)
	if start == nil {
		return nil
	}
	rest := manifest[start[1]:]
	if next := tomlTable.FindIndex(rest); next != nil {
		rest = rest[:next[0]]
	}
	return rest
}

func (b *Builder) makeSteps() ([]step, error) {
	mk, err := b.Runtimes.Find("make", "make")
	if err != nil {
		return nil, err
	}
	return []step{{args: []string{mk, "-j2"}}}, nil
}

var (
	javaPackage = regexp.MustCompile(`(?m)^\s*package\s+([\w.]+)\s*;`)
	javaMain    = regexp.MustCompile(`public\s+static\s+void\s+main\s*\(`)
)

// javaSources compiles plain .java sources into the RunFile jar, with the
// class holding main as its entry point.
func (b *Builder) javaSources(work string, m botmeta.Manifest) ([]step, error) {
	if !strings.HasSuffix(strings.ToLower(m.RunFile), ".jar") {
		return nil, fmt.Errorf("RunFile %s of a Java bot must be a .jar", m.RunFile)
	}
	srcs := sources(work, ".java")
	if len(srcs) == 0 {
		if _, err := os.Stat(filepath.Join(work, filepath.FromSlash(m.RunFile))); err == nil {
			return nil, nil // a prebuilt jar
		}
		return nil, fmt.Errorf("no pom.xml, Makefile or .java sources to build %s from", m.RunFile)
	}
	var mainClass string
	for _, s := range srcs {
		data, err := os.ReadFile(filepath.Join(work, s))
		if err != nil || !javaMain.Match(data) {
			continue
		}
		cls := strings.TrimSuffix(filepath.Base(s), ".java")
		if pm := javaPackage.FindSubmatch(data); pm != nil {
			cls = string(pm[1]) + "." + cls
		}
		mainClass = cls
		break
	}
	if mainClass == "" {
		return nil, fmt.Errorf("no class with a main method among the .java sources")
	}
	javac, err := b.Runtimes.Find("Java", "javac")
	if err != nil {
		return nil, err
	}
	jar, err := b.Runtimes.Find("Java", "jar")
	if err != nil {
		return nil, err
	}
	runFile := filepath.FromSlash(m.RunFile)
	classes := filepath.Join(filepath.Dir(runFile), "classes")
	return []step{
		{args: []string{"/bin/mkdir", "-p", classes}},
		{args: append([]string{javac, "-encoding", "UTF-8", "-d", classes}, srcs...)},
		{args: []string{jar, "cfe", runFile, mainClass, "-C", classes, "."}},
	}, nil
}

// sources lists files under work with one of the extensions, relative and
// sorted, skipping hidden and dependency folders.
func sources(work string, exts ...string) []string {
	var out []string
	filepath.WalkDir(work, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() && p != work && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "build" || name == "target") {
			return filepath.SkipDir
		}
		for _, e := range exts {
			if !d.IsDir() && strings.HasSuffix(name, e) {
				rel, _ := filepath.Rel(work, p)
				out = append(out, rel)
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
