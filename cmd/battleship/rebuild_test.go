package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// TestForceRebuild checks -f: bots are built from source by the platform's
// build before the match, and a bot never built gets one line saying so.
func TestForceRebuild(t *testing.T) {
	t.Parallel()
	needTool(t, "go")
	tmp := t.TempDir()
	k := kit{bin: battleshipBinary(t), bots: filepath.Join(tmp, "bots")}
	// Fresh copies, as in a new clone: nothing built.
	for _, name := range []string{"entelect-go-reference", "entelect-python3", "entelect-csharp"} {
		if err := os.CopyFS(filepath.Join(k.bots, name), os.DirFS(filepath.Join("..", "..", "bots", name))); err != nil {
			t.Fatal(err)
		}
		for _, built := range []string{"bot", "bin", "obj"} {
			os.RemoveAll(filepath.Join(k.bots, name, built))
		}
	}

	t.Run("a bot never built is named with -f", func(t *testing.T) {
		r := k.play(t, "-b", "entelect-go-reference", "entelect-python3", "-s", "1", "--seed", "1", "--json",
			"-l", filepath.Join(t.TempDir(), "r"))
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		var warnings []string
		for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
			if strings.Contains(l, "warning") {
				warnings = append(warnings, l)
			}
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], "RunFile bot does not exist") || !strings.Contains(warnings[0], "pass -f") {
			t.Errorf("want one line naming the RunFile and -f, got:\n%s", r.stderr)
		}
	})

	t.Run("a failed build stops before the match", func(t *testing.T) {
		needTool(t, "mono", "xbuild")
		broken := filepath.Join(k.bots, "broken-csharp")
		if err := os.CopyFS(broken, os.DirFS(filepath.Join(k.bots, "entelect-csharp"))); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(broken, "State.cs"), []byte("namespace StarterBot { }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := k.play(t, "-f", "-b", "entelect-python3", "broken-csharp", "--json")
		if r.code != 1 || !strings.Contains(r.stderr, "error CS0246") || !strings.Contains(r.stderr, "build failed for broken-csharp") {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
		if r.stdout != "" || strings.Contains(r.stderr, "Replay:") {
			t.Errorf("a match was played: %s", r.stdout)
		}
	})

	t.Run("-f --sandbox builds C# and Go from source and plays", func(t *testing.T) {
		needTool(t, "mono", "xbuild")
		replay := filepath.Join(t.TempDir(), "replay")
		r := k.play(t, "-f", "--sandbox", "-b", "entelect-go-reference", "entelect-csharp", "-s", "1", "--seed", "3", "--json", "-l", replay)
		if err := sandbox.Require(sandbox.Probe(context.Background())); err != nil {
			if r.code != 1 || !strings.Contains(r.stderr, "--sandbox: this machine cannot confine bots") {
				t.Errorf("unenforceable sandbox: exit %d, stderr %q", r.code, r.stderr)
			}
			testenv.RequireErr(t, "an enforced sandbox", err)
		}
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		for _, want := range []string{"=== Building entelect-go-reference", "go build -o bot .",
			"=== Building entelect-csharp", "xbuild /nologo /verbosity:minimal /t:Rebuild /p:Configuration=Release StarterBot.csproj"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("build log lacks %q:\n%s", want, r.stderr)
			}
		}
		if n := strings.Count(r.stderr, "Build succeeded."); n != 2 {
			t.Errorf("%d builds succeeded, want 2:\n%s", n, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(k.bots, "entelect-csharp", "bin", "Release", "StarterBot.exe")); err != nil {
			t.Errorf("C# RunFile not built: %v", err)
		}
		p := r.summary.Players
		if len(p) != 2 || p[0].Name != "Go Reference" || p[1].Name != "CSharp Starter" {
			t.Fatalf("players %+v", p)
		}
		for _, pl := range p {
			if pl.ShotsFired == 0 {
				t.Errorf("%s fired no shot: %+v", pl.Name, pl)
			}
		}
		checkReplay(t, replay, r.summary.Rounds)
	})
}
