package build

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game/rulesets"
)

// TestPlanNetworkRunsNoBotCode checks every build plan that fetches
// dependencies: the step with the network is a download in a fresh folder
// that starts nothing of the bot (no install scripts, no build, no
// setup.py), and the steps that may run the bot's code have no network.
func TestPlanNetworkRunsNoBotCode(t *testing.T) {
	b := &Builder{Runtimes: botexec.NewRuntimes()}
	cases := []struct {
		name  string
		files map[string]string
		// fetch must be in the networked step's arguments; build in a
		// later step's, which has no network.
		fetch, build []string
	}{
		{"npm without a lock", map[string]string{"bot.json": `{"BotType":"JavaScript","RunFile":"bot.js"}`, "bot.js": "",
			"package.json": `{"scripts":{"postinstall":"node evil.js"}}`}, []string{"install", "--ignore-scripts", "--git"}, []string{"rebuild", "--offline"}},
		{"npm with a lock", map[string]string{"bot.json": `{"BotType":"JavaScript","RunFile":"bot.js"}`, "bot.js": "",
			"package.json": `{}`, "package-lock.json": `{}`}, []string{"ci", "--ignore-scripts"}, []string{"rebuild"}},
		{"maven", map[string]string{"bot.json": `{"BotType":"Java","RunFile":"target/bot.jar"}`, "pom.xml": "<project/>"},
			[]string{goOffline}, []string{"-o", "package"}},
		{"pip", map[string]string{"bot.json": `{"BotType":"Python3","RunFile":"bot.py"}`, "bot.py": "",
			"requirements.txt": "numpy==2.1\nrequests[socks] >= 2 ; python_version > '3'  # comment\n"},
			[]string{"-I", "download", "--only-binary=:all:"}, []string{"install", "--no-index"}},
		{"cargo", map[string]string{"bot.json": `{"BotType":"Rust","RunFile":"target/release/bot"}`,
			"Cargo.toml": "[package]\nname = \"bot\"\nversion = \"0.1.0\"\n"}, []string{"fetch"}, []string{"build", "--offline"}},
		{"go", map[string]string{"bot.json": `{"BotType":"Golang","RunFile":"bot"}`, "go.mod": "module bot\n"},
			[]string{"mod", "download"}, []string{"build"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeBot(t, c.files)
			m, err := botmeta.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			steps, err := b.plan(dir, m)
			if err != nil {
				t.Fatalf("plan: %v (scripts/setup.sh installs the toolchains)", err)
			}
			fetch := slices.IndexFunc(steps, func(s step) bool { return s.fetch != nil })
			if fetch < 0 {
				t.Fatalf("no step fetches dependencies: %v", steps)
			}
			args, _ := steps[fetch].fetch.command("/fresh")
			for _, a := range c.fetch {
				if !slices.Contains(args, a) {
					t.Errorf("the networked step %q lacks %q", args, a)
				}
			}
			built := false
			for i, s := range steps {
				if s.fetch != nil && i != fetch {
					t.Errorf("a second step has the network: %q", s.args)
				}
				if i > fetch && containsAll(s.args, c.build) {
					built = true
				}
			}
			if !built {
				t.Errorf("no step after the fetch runs %q offline: %v", c.build, steps)
			}
		})
	}
}

func containsAll(args, want []string) bool {
	for _, w := range want {
		if !slices.Contains(args, w) {
			return false
		}
	}
	return true
}

func TestPlanRefusesLocalRequirements(t *testing.T) {
	b := &Builder{Runtimes: botexec.NewRuntimes()}
	for _, line := range []string{"./localpkg", "-e .", "mypkg @ file:///tmp/x", "https://example.com/x.tar.gz",
		"--index-url https://evil.example/simple", "-r other.txt", "../up", "pkg.tar.gz/"} {
		t.Run(line, func(t *testing.T) {
			dir := writeBot(t, map[string]string{"bot.json": `{"BotType":"Python3","RunFile":"bot.py"}`, "bot.py": "",
				"requirements.txt": "numpy\n" + line + "\n"})
			m, err := botmeta.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.plan(dir, m)
			if err == nil || !strings.Contains(err.Error(), "line 2") {
				t.Fatalf("plan: %v, want line 2 refused", err)
			}
		})
	}
}

// TestBuildScriptsRunWithoutNetwork builds a JavaScript bot whose own
// package.json has install scripts, in the sandbox: the scripts run, in a
// step with no way out (no proxy set, the egress relay not listening).
func TestBuildScriptsRunWithoutNetwork(t *testing.T) {
	r := runner(t)
	b := New(r, rulesets.Registry())
	probe := `const fs = require("fs"), net = require("net");
const proxy = process.env.HTTPS_PROXY || process.env.https_proxy || process.env.npm_config_https_proxy || "none";
const s = net.connect(3128, "127.0.0.1");
s.on("connect", () => { fs.writeFileSync("probe.txt", "proxy=" + proxy + " relay=open\n"); s.destroy(); });
s.on("error", (e) => fs.writeFileSync("probe.txt", "proxy=" + proxy + " relay=" + e.code + "\n"));
`
	dir := writeBot(t, map[string]string{
		"bot.json":     `{"BotType":"JavaScript","RunFile":"bot.js"}`,
		"bot.js":       "console.log(1)\n",
		"probe.js":     probe,
		"package.json": `{"name":"bot","version":"1.0.0","scripts":{"postinstall":"node probe.js"}}`,
	})
	m, err := botmeta.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Build(context.Background(), dir, m)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("build failed:\n%s", res.Log)
	}
	got, err := os.ReadFile(filepath.Join(dir, "probe.txt"))
	if err != nil {
		t.Fatalf("the install script did not run: %v\n%s", err, res.Log)
	}
	if want := "proxy=none relay=ECONNREFUSED\n"; string(got) != want {
		t.Fatalf("the install script saw %q, want %q (no network)", got, want)
	}
}
