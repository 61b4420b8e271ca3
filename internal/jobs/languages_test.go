package jobs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testenv"
)

// TestWorkerOriginalBotTypes takes the 2017 bot types the starters do not
// cover through the worker: a Python 2 bot (bot type 4) builds and plays a
// match against the Python 3 starter, and the types this platform cannot
// build fail their build at once with the reason and what to do. The C#
// starter, built from source with xbuild and run under mono, plays in
// TestParity and cmd/portal's TestBrowserOriginalBotTypes. Julia is not
// among them: whether it builds depends on the machine (Debian has no
// Julia), so internal/botexec checks the refusal with a PATH of its own.
func TestWorkerOriginalBotTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and plays real bots")
	}
	// Python 2.7 is what setup provides for it (pyenv); the refusal where
	// a machine has none is internal/botexec's to check.
	testenv.RequireProgram(t, "python2")
	e := setup(t)
	startWorker(t, e, t.TempDir())

	py3 := e.upload(t, "Snake", zipDir(t, "../../bots/entelect-python3", nil))
	// The Python 3 starter is also valid Python 2.
	py2Dir := filepath.Join(t.TempDir(), "py2")
	if err := os.CopyFS(py2Dir, os.DirFS("../../bots/entelect-python3")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(py2Dir, "bot.json"), []byte(`{"NickName":"Old Snake","BotType":4,"ProjectLocation":"","RunFile":"bot.py"}`), 0o644)
	py2 := e.upload(t, "Old Snake", zipDir(t, py2Dir, nil))

	refused := []struct {
		name, manifest string
		files          map[string]string
		want           string
	}{
		{"fsharp", `{"BotType":"FSharp","ProjectLocation":"","RunFile":"bin\\Release\\Bot.exe"}`,
			map[string]string{"Bot.fsproj": "<Project/>", "Program.fs": "printfn \"hi\"\n"}, "no F# compiler"},
		{"scala", `{"BotType":"Scala","ProjectLocation":"","RunFile":"target/scala-2.12/bot.jar"}`,
			map[string]string{"build.sbt": "name := \"bot\"\n", "src/main/scala/Bot.scala": "object Bot extends App\n"}, "sbt is not available here"},
		{"nuget", `{"BotType":"CSharp","ProjectLocation":"","RunFile":"bin\\Release\\StarterBot.exe"}`,
			map[string]string{"packages.config": `<packages><package id="Newtonsoft.Json" version="10.0.3" /></packages>`},
			"NuGet package(s) Newtonsoft.Json 10.0.3 are not in the bot's packages/ folder"},
	}
	versions := map[string]int64{}
	for _, r := range refused {
		dir := t.TempDir()
		files := map[string]string{"bot.json": r.manifest}
		for name, body := range r.files {
			files[name] = body
		}
		if r.name == "nuget" {
			// The C# starter plus a package it does not ship.
			if err := os.CopyFS(filepath.Join(dir, "bot"), os.DirFS("../../bots/entelect-csharp")); err != nil {
				t.Fatal(err)
			}
			dir = filepath.Join(dir, "bot")
			delete(files, "bot.json")
		}
		for name, body := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		versions[r.name] = e.upload(t, r.name, zipDir(t, dir, nil))
	}
	for _, r := range refused {
		t.Run("refused "+r.name, func(t *testing.T) {
			got := e.waitBuilt(t, versions[r.name], 3*time.Minute)
			if got.BuildStatus != store.BuildFailed || !strings.Contains(got.BuildLog, r.want) {
				t.Fatalf("%s: %s, log lacks %q:\n%s", r.name, got.BuildStatus, r.want, got.BuildLog)
			}
		})
	}

	for name, id := range map[string]int64{"Python 2 bot": py2, "Python 3 starter": py3} {
		if got := e.waitBuilt(t, id, 3*time.Minute); got.BuildStatus != store.BuildOK {
			t.Fatalf("%s: %s\n%s", name, got.BuildStatus, got.BuildLog)
		}
	}
	p2V, _ := e.st.BotVersionGetByID(e.ctx, py2)
	p3V, _ := e.st.BotVersionGetByID(e.ctx, py3)
	id := e.createMatch(t, 5, p2V.BotID, p3V.BotID)
	m := e.waitMatch(t, id, 5*time.Minute)
	if m.Status != store.MatchFinished {
		t.Fatalf("match %s: %s", m.Status, m.Error)
	}
	for _, p := range m.Players {
		if p.ShotsFired == 0 || p.Killed && p.ShipsLeft != 0 {
			t.Errorf("seat %d (%s) did not play: %+v", p.Seat, p.BotName, p)
		}
	}
}

// TestWorkerMavenBot builds the Java starter as a Maven project (its
// sources, a pom.xml instead of its Makefile) in the sandbox through the
// worker, and plays it against the Python starter.
func TestWorkerMavenBot(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and plays real bots")
	}
	testenv.RequireProgram(t, "mvn", "javac", "python3")
	e := setup(t)
	startWorker(t, e, t.TempDir())
	dir := filepath.Join(t.TempDir(), "maven")
	if err := os.CopyFS(dir, os.DirFS("../../bots/entelect-java")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "Makefile"))
	pom, err := os.ReadFile("../build/testdata/maven-starter.pom.xml")
	if err != nil {
		t.Fatal(err)
	}
	java := e.upload(t, "Maven Java", zipDir(t, dir, map[string]string{"pom.xml": string(pom)}))
	py := e.upload(t, "Pythonista", zipDir(t, "../../bots/entelect-python3", nil))
	if got := e.waitBuilt(t, java, 10*time.Minute); got.BuildStatus != store.BuildOK || !strings.Contains(got.BuildLog, "go-offline") {
		t.Fatalf("Maven bot: %s\n%s", got.BuildStatus, got.BuildLog)
	}
	if got := e.waitBuilt(t, py, 3*time.Minute); got.BuildStatus != store.BuildOK {
		t.Fatalf("Python starter: %s\n%s", got.BuildStatus, got.BuildLog)
	}
	javaV, _ := e.st.BotVersionGetByID(e.ctx, java)
	pyV, _ := e.st.BotVersionGetByID(e.ctx, py)
	m := e.waitMatch(t, e.createMatch(t, 7, javaV.BotID, pyV.BotID), 5*time.Minute)
	if m.Status != store.MatchFinished {
		t.Fatalf("match %s: %s", m.Status, m.Error)
	}
	for _, p := range m.Players {
		if p.ShotsFired == 0 {
			t.Errorf("seat %d (%s) did not play: %+v", p.Seat, p.BotName, p)
		}
	}
}
