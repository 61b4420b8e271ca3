package build

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/broadside/broadside/internal/botmeta"
)

// planOriginal decides the builds of the bot types whose tools differ from
// the usual ones: C# is built with Mono's xbuild as the original engine
// built it on Linux; F#, Julia and Scala get a clear reason when they
// cannot be built here. handled is false when plan's general rules apply.
func (b *Builder) planOriginal(work string, m botmeta.Manifest) (steps []step, handled bool, err error) {
	prebuilt := func() bool {
		_, err := os.Stat(filepath.Join(work, filepath.FromSlash(m.RunFile)))
		return err == nil
	}
	switch m.BotType {
	case botmeta.CSharp:
		steps, err := b.csharpSteps(work, m, prebuilt())
		return steps, true, err

	case botmeta.FSharp:
		if prebuilt() {
			return nil, true, nil // a compiled .exe with its FSharp.Core.dll runs with mono
		}
		//lint:ignore ST1005 a sentence for the contestant's build log ("Build failed: …"), starting with a language's name
		return nil, true, errors.New("F# bots cannot be built here: the platform's Linux distribution has no F# compiler. " +
			"Build the bot yourself (Release configuration) and upload it with the compiled .exe, FSharp.Core.dll and " +
			"the other .dll files beside it, with RunFile naming the .exe; it then runs with mono")

	case botmeta.Julia:
		if _, err := b.Runtimes.Find("Julia", "julia"); err != nil {
			//lint:ignore ST1005 a sentence for the contestant's build log ("Build failed: …"), starting with a language's name
			return nil, true, errors.New("Julia bots cannot run here: the platform's Linux distribution has no Julia " +
				"and the platform does not install one. Port the bot to another language, or ask the operator to install " +
				"julia on the workers")
		}
		return nil, true, nil

	case botmeta.Python2:
		if _, err := b.Runtimes.Find("Python2", "python2", "python2.7"); err != nil {
			//lint:ignore ST1005 a sentence for the contestant's build log ("Build failed: …"), starting with a language's name
			return nil, true, fmt.Errorf("Python 2 bots cannot run on this machine: %v (current Debian no longer packages "+
				"Python 2). Port the bot to Python 3 (BotType Python3), or ask the operator to install Python 2.7 on the workers", err)
		}
		return nil, false, nil

	case botmeta.Scala:
		switch {
		case fileExists(work, "pom.xml") || fileExists(work, "Makefile") || fileExists(work, "makefile"):
			return nil, false, nil
		case prebuilt():
			return nil, true, nil
		}
		why := "no pom.xml, Makefile or prebuilt jar"
		if fileExists(work, "build.sbt") {
			why = "sbt is not available here (it needs its own repositories, which the build cannot reach)"
		}
		//lint:ignore ST1005 a sentence for the contestant's build log ("Build failed: …"), starting with a language's name
		return nil, true, fmt.Errorf("Scala bot cannot be built: %s. Build one jar with every dependency inside "+
			"(sbt assembly) and upload it, with RunFile naming it; it runs with java -jar", why)
	}
	return nil, false, nil
}

// csharpSteps builds a C# bot with xbuild, as the original engine did on
// Linux: the one solution (else project) in the project folder, rebuilt in
// the Release configuration. NuGet packages must be in the bot's packages/
// folder: the NuGet gallery is out of reach, so a missing one fails the
// build before xbuild runs, naming it.
func (b *Builder) csharpSteps(work string, m botmeta.Manifest, prebuilt bool) ([]step, error) {
	project, err := dotnetProject(work)
	if err != nil {
		return nil, err
	}
	if project == "" {
		if prebuilt {
			return nil, nil // a compiled .exe shipped as is
		}
		return nil, fmt.Errorf("no .sln or .csproj in the project folder to build %s from, and no prebuilt %[1]s", m.RunFile)
	}
	if err := checkPackages(work); err != nil {
		return nil, err
	}
	if sdk, err := sdkStyle(filepath.Join(work, project)); err != nil {
		return nil, err
	} else if sdk {
		return nil, fmt.Errorf("%s is an SDK-style project (<Project Sdk=...>), which needs the dotnet SDK and the NuGet "+
			"gallery; neither is available here. Use a classic .csproj for .NET Framework 4.x (as the 2017 starter kit did)", project)
	}
	xbuild, err := b.Runtimes.Find("CSharp", "xbuild", "msbuild")
	if err != nil {
		return nil, err
	}
	args := []string{xbuild, "/nologo", "/verbosity:minimal", "/t:Rebuild", "/p:Configuration=Release"}
	if strings.EqualFold(filepath.Ext(project), ".sln") {
		// The platform name of solutions; projects spell it AnyCPU.
		args = append(args, "/p:Platform=Any CPU")
	}
	return []step{{args: append(args, project)}}, nil
}

// dotnetProject returns the solution or project file to build in work: the
// only .sln, else the only .csproj; "" when there is neither.
func dotnetProject(work string) (string, error) {
	for _, ext := range []string{".sln", ".csproj"} {
		matches, err := filepath.Glob(filepath.Join(work, "*"+ext))
		if err != nil {
			return "", err
		}
		switch len(matches) {
		case 0:
			continue
		case 1:
			return filepath.Base(matches[0]), nil
		}
		names := make([]string, len(matches))
		for i, p := range matches {
			names[i] = filepath.Base(p)
		}
		sort.Strings(names)
		return "", fmt.Errorf("several %s files in the project folder (%s): keep one, or point ProjectLocation at the folder of the one to build",
			ext, strings.Join(names, ", "))
	}
	return "", nil
}

var sdkProject = regexp.MustCompile(`<Project\s[^>]*\bSdk\s*=`)

// sdkStyle says whether a project file (or the first project of a
// solution, where every project is usually of one kind) is SDK-style.
func sdkStyle(file string) (bool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", filepath.Base(file), err)
	}
	if strings.EqualFold(filepath.Ext(file), ".csproj") {
		return sdkProject.Match(data), nil
	}
	for _, rel := range solutionProjects.FindAllSubmatch(data, -1) {
		p := filepath.Join(filepath.Dir(file), filepath.FromSlash(strings.ReplaceAll(string(rel[1]), `\`, "/")))
		if proj, err := os.ReadFile(p); err == nil && sdkProject.Match(proj) {
			return true, nil
		}
	}
	return false, nil
}

// solutionProjects finds the project paths of a .sln's Project lines.
var solutionProjects = regexp.MustCompile(`(?m)^Project\("[^"]*"\)\s*=\s*"[^"]*",\s*"([^"]+\.[cf]sproj)"`)

// packagesConfig is a NuGet packages.config file.
type packagesConfig struct {
	Packages []struct {
		ID      string `xml:"id,attr"`
		Version string `xml:"version,attr"`
	} `xml:"package"`
}

// checkPackages reads every packages.config under work and fails, naming
// them, when packages it lists are not in a packages/ folder beside it or
// above it (where NuGet restores them for a solution).
func checkPackages(work string) error {
	var missing []string
	err := filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != work && (strings.HasPrefix(d.Name(), ".") || d.Name() == "packages" || d.Name() == "bin" || d.Name() == "obj") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.EqualFold(d.Name(), "packages.config") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		var cfg packagesConfig
		if err := xml.Unmarshal(data, &cfg); err != nil {
			rel, _ := filepath.Rel(work, p)
			return fmt.Errorf("%s is not valid XML: %v", rel, err)
		}
		for _, pkg := range cfg.Packages {
			if !packageShipped(work, filepath.Dir(p), pkg.ID, pkg.Version) {
				missing = append(missing, pkg.ID+" "+pkg.Version)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("NuGet package(s) %s are not in the bot's packages/ folder, and the NuGet gallery cannot be reached "+
			"from the build. Run \"nuget restore\" on your machine and upload the bot with its packages/ folder",
			strings.Join(missing, ", "))
	}
	return nil
}

// packageShipped looks for packages/<id>.<version> (any letter case) in dir
// and the folders above it, up to work.
func packageShipped(work, dir, id, version string) bool {
	want := strings.ToLower(id + "." + version)
	for {
		entries, _ := os.ReadDir(filepath.Join(dir, "packages"))
		for _, e := range entries {
			if e.IsDir() && strings.ToLower(e.Name()) == want {
				return true
			}
		}
		if dir == work || len(dir) <= len(work) {
			return false
		}
		dir = filepath.Dir(dir)
	}
}

func fileExists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
