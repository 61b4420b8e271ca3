package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// kit is the command and the bots built for one test run.
type kit struct {
	bin  string // the battleship binary
	bots string // a copy of bots/, built
}

// newKit builds a copy of the starter bots in a temporary folder, so the
// source tree stays clean, beside cmd/battleship built once for all tests.
func newKit(t *testing.T) kit {
	t.Helper()
	return newKitIn(t, t.TempDir())
}

// newKitIn is newKit in the folder tmp.
func newKitIn(t *testing.T, tmp string) kit {
	t.Helper()
	k := kit{bin: battleshipBinary(t), bots: filepath.Join(tmp, "bots")}
	for _, name := range []string{"entelect-go-reference", "entelect-python3", "entelect-javascript", "entelect-java", "entelect-cplusplus", "entelect-rust"} {
		if err := os.CopyFS(filepath.Join(k.bots, name), os.DirFS(filepath.Join("..", "..", "bots", name))); err != nil {
			t.Fatal(err)
		}
	}
	runIn(t, filepath.Join(k.bots, "entelect-go-reference"), "go", "build", "-o", "bot", ".")
	return k
}

// battleshipBinary is this command, built once for all tests.
func battleshipBinary(t *testing.T) string {
	t.Helper()
	return testenv.GoBinary(t, "github.com/broadside/broadside/cmd/battleship")
}

func runIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// result is one run of the command.
type result struct {
	code           int
	stdout, stderr string
	summary        game.Summary
}

func (k kit) play(t *testing.T, args ...string) result {
	t.Helper()
	return k.playInput(t, "", args...)
}

// playInput runs the command with stdin as its standard input.
func (k kit) playInput(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return k.playEnv(t, nil, stdin, args...)
}

// playEnv runs the command with env added to the test's environment.
func (k kit) playEnv(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(k.bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = k.bots
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if r.code == 0 && slicesContains(args, "--json") {
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r.summary); err != nil {
			t.Fatalf("last line of stdout is not the summary: %v\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
		}
	}
	return r
}

func slicesContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// needTool requires a sample bot's toolchain (see testenv.Require).
func needTool(t *testing.T, tools ...string) {
	t.Helper()
	testenv.RequireProgram(t, tools...)
}

var roundFolder = regexp.MustCompile(`^Phase ([12]) - Round (\d+)$`)

// checkReplay checks the replay folder's layout (spec §3.5) and returns
// the final folder's root state.
func checkReplay(t *testing.T, dir string, rounds int) map[string]any {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var nums []int
	final := ""
	for _, e := range entries {
		m := roundFolder.FindStringSubmatch(e.Name())
		if m == nil {
			t.Errorf("unexpected %q in the replay folder", e.Name())
			continue
		}
		n, _ := strconv.Atoi(m[2])
		nums = append(nums, n)
		if n == rounds {
			final = e.Name()
		}
	}
	sort.Ints(nums)
	for i, n := range nums {
		if n != i {
			t.Fatalf("round folders %v are not 0..%d", nums, rounds)
		}
	}
	if final == "" {
		t.Fatalf("no final folder for round %d in %v", rounds, nums)
	}
	for _, f := range []string{
		"Phase 1 - Round 0/state.json", "Phase 1 - Round 0/A - map.txt", "Phase 1 - Round 0/roundInfo.json",
		"Phase 1 - Round 0/engine.log", "Phase 1 - Round 0/A/state.json", "Phase 1 - Round 0/A/map.txt",
		"Phase 1 - Round 0/A/log.txt", "Phase 1 - Round 0/B/log.txt", "Phase 1 - Round 0/A/place.txt",
		final + "/state.json", final + "/roundInfo.json", final + "/B - map.txt",
	} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("replay: %v", err)
		}
	}
	var root map[string]any
	data, err := os.ReadFile(filepath.Join(dir, final, "state.json"))
	if err == nil {
		err = json.Unmarshal(data, &root)
	}
	if err != nil {
		t.Fatalf("final state.json: %v", err)
	}
	return root
}

// TestEndToEnd plays the reference bot against every sample bot on every
// map size, then the bad-input cases, through the built command.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	needTool(t, "go")
	k := newKit(t)
	t.Run("matches", func(t *testing.T) {
		samples := []struct {
			dir   string
			tools []string
			build []string
		}{
			{"entelect-python3", []string{"python3"}, nil},
			{"entelect-javascript", []string{"node"}, nil},
			{"entelect-cplusplus", []string{"make", "g++"}, []string{"make"}},
			{"entelect-java", []string{"make", "javac", "jar", "java"}, []string{"make"}},
			{"entelect-rust", []string{"cargo"}, []string{"cargo", "build", "--release", "--offline"}},
		}
		for _, s := range samples {
			// The smallest and the largest map: the medium one is played
			// by the reference bot below ("same seed same match").
			for _, size := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s size %d", s.dir, size), func(t *testing.T) {
					needTool(t, s.tools...)
					if s.build != nil {
						runIn(t, filepath.Join(k.bots, s.dir), s.build...)
					}
					if testing.Short() && size != 1 {
						t.Skip("short: small map only")
					}
					t.Parallel()
					replay := filepath.Join(t.TempDir(), "replay")
					r := k.play(t, "-b", "entelect-go-reference", s.dir, "-s", strconv.Itoa(size), "--seed", "11", "--json", "-l", replay)
					if r.code != 0 {
						t.Fatalf("exit %d\n%s", r.code, r.stderr)
					}
					sum := r.summary
					if sum.Game != "entelect" || sum.Seed != 11 || len(sum.Players) != 2 || sum.Winner == nil || sum.Rounds < 2 {
						t.Fatalf("summary %+v", sum)
					}
					if sum.Players[0].Name != "Go Reference" || sum.Players[0].Key != "A" || sum.Players[1].Key != "B" {
						t.Errorf("players %+v", sum.Players)
					}
					for _, p := range sum.Players {
						if p.ShotsFired == 0 || (p.Rank == 1) != (p.Key == *sum.Winner) {
							t.Errorf("player %+v with winner %s", p, *sum.Winner)
						}
					}
					root := checkReplay(t, replay, sum.Rounds)
					if want := []float64{7, 10, 14}[size-1]; root["MapDimension"] != want {
						t.Errorf("MapDimension %v, want %v", root["MapDimension"], want)
					}
				})
			}
		}
	})
	t.Run("bad bots", func(t *testing.T) { testBadBots(t, k) })
	t.Run("debug halts", func(t *testing.T) { testDebugHalt(t, k) })
	// The remaining cases play the (native, quick) reference bot against
	// itself.
	const ref = "entelect-go-reference"
	t.Run("same seed same match", func(t *testing.T) {
		t.Parallel()
		a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
		ra := k.play(t, "-b", ref, ref, "-s", "2", "--seed", "3", "--json", "-l", a)
		rb := k.play(t, "-b", ref, ref, "-s", "2", "--seed", "3", "--json", "-l", b)
		ja, _ := json.Marshal(ra.summary)
		jb, _ := json.Marshal(rb.summary)
		if ra.code != 0 || !bytes.Equal(ja, jb) {
			t.Fatalf("summaries differ:\n%s\n%s", ja, jb)
		}
		final := fmt.Sprintf("Phase 2 - Round %d/state.json", ra.summary.Rounds)
		sa, errA := os.ReadFile(filepath.Join(a, final))
		sb, errB := os.ReadFile(filepath.Join(b, final))
		if errA != nil || errB != nil || !bytes.Equal(sa, sb) {
			t.Errorf("final states differ (%v, %v)", errA, errB)
		}
	})
	t.Run("default replay folder", func(t *testing.T) {
		t.Parallel()
		r := k.play(t, "-b", ref, ref, "-s", "1", "--seed", "77")
		r2 := k.play(t, "-b", ref, ref, "-s", "1", "--seed", "77")
		for i, want := range []string{"Replays/77", "Replays/77-2"} {
			dir := filepath.Join(k.bots, want)
			if _, err := os.Stat(filepath.Join(dir, "Phase 1 - Round 0")); err != nil {
				t.Errorf("run %d: %v", i+1, err)
			}
		}
		if r.code != 0 || !strings.Contains(r.stdout, "Winner: ") || !strings.Contains(r2.stdout, filepath.Join(k.bots, "Replays/77-2")) {
			t.Errorf("human summary:\n%s\n%s", r.stdout, r2.stdout)
		}
	})
	t.Run("console player", func(t *testing.T) {
		t.Parallel()
		// Player A types a fleet, then fires at every cell of the 7×7 map.
		var in strings.Builder
		in.WriteString("Battleship 0 0 North\nCarrier 1 0 North\nCruiser 2 0 North\nDestroyer 3 0 North\nSubmarine 4 0 North\n")
		for x := 0; x < 7; x++ {
			for y := 0; y < 7; y++ {
				fmt.Fprintf(&in, "1,%d,%d\n", x, y)
			}
		}
		r := k.playInput(t, in.String(), "-c", "1", "-b", ref, "-s", "1", "--json", "-l", filepath.Join(t.TempDir(), "r"))
		if r.code != 0 || !strings.Contains(r.stdout, "place your ships") {
			t.Fatalf("exit %d\nstdout: %.2000s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		p := r.summary.Players
		if len(p) != 2 || p[0].Key != "A" || p[0].Name != "Console Player 1" || p[0].ShotsFired == 0 || p[1].Name != "Go Reference" {
			t.Errorf("players %+v", p)
		}
	})
	t.Run("command line errors", func(t *testing.T) {
		for _, args := range [][]string{{"--bogus"}, {"-s", "x"}, {"--game", "chess", "-b", "entelect-python3"}} {
			if r := k.play(t, args...); r.code != 2 || !strings.Contains(r.stderr, "battleship:") {
				t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
			}
		}
		if r := k.play(t, "--help"); r.code != 0 || !strings.Contains(r.stdout, "--tournamentMode") {
			t.Errorf("--help: exit %d", r.code)
		}
		r := k.play(t, "-b", "entelect-python3", "entelect-python3", "entelect-python3")
		if r.code != 1 || !strings.Contains(r.stderr, "takes 2 players, got 3") {
			t.Errorf("three bots: exit %d, stderr %q", r.code, r.stderr)
		}
	})
	t.Run("sandbox", func(t *testing.T) {
		t.Parallel()
		replay := filepath.Join(t.TempDir(), "replay")
		r := k.play(t, "--sandbox", "-b", ref, ref, "-s", "1", "--seed", "4", "--json", "-l", replay)
		if err := sandbox.Require(sandbox.Probe(context.Background())); err != nil {
			if r.code != 1 || !strings.Contains(r.stderr, "--sandbox: this machine cannot confine bots") {
				t.Errorf("unenforceable sandbox: exit %d, stderr %q", r.code, r.stderr)
			}
			testenv.RequireErr(t, "an enforced sandbox", err)
		}
		if r.code != 0 || r.summary.Winner == nil {
			t.Fatalf("exit %d, summary %+v\n%s", r.code, r.summary, r.stderr)
		}
		checkReplay(t, replay, r.summary.Rounds)
	})
	t.Run("sandbox with a virtualenv first on PATH", func(t *testing.T) {
		t.Parallel()
		// python3 of the virtualenv is a link into it, and the virtualenv
		// sits in a temporary folder the sandbox's own /tmp hides. Logs
		// name the interpreter without its path, so a .pth file only this
		// virtualenv's python reads says which one ran (not a
		// sitecustomize: Debian's python finds its own in the standard
		// library first).
		venv := filepath.Join(t.TempDir(), "venv")
		runIn(t, ".", "python3", "-m", "venv", "--without-pip", venv)
		const marker = "started by the python of the virtualenv"
		sitePackages, _ := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages"))
		if len(sitePackages) != 1 {
			t.Fatalf("the virtualenv has no one site-packages folder: %v", sitePackages)
		}
		// A .pth file runs its lines that start with "import".
		custom := "import sys; sys.stderr.write(" + strconv.Quote(marker+"\n") + ")\n"
		if err := os.WriteFile(filepath.Join(sitePackages[0], "broadside-marker.pth"), []byte(custom), 0o644); err != nil {
			t.Fatal(err)
		}
		replay := filepath.Join(t.TempDir(), "replay")
		py := filepath.Join(k.bots, "entelect-python3")
		r := k.playEnv(t, []string{"PATH=" + filepath.Join(venv, "bin") + ":" + os.Getenv("PATH")}, "",
			"--sandbox", "-b", py, py, "-s", "1", "--seed", "3", "--json", "-l", replay)
		if err := sandbox.Require(sandbox.Probe(context.Background())); err != nil {
			testenv.RequireErr(t, "an enforced sandbox", err)
		}
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		for _, p := range r.summary.Players {
			if p.ShotsFired == 0 || p.Reason == "killed after 5 failed ship placements" {
				t.Errorf("player %s fired no shot: %+v", p.Key, p)
			}
		}
		logs, _ := filepath.Glob(filepath.Join(replay, "Phase 1 - Round 0", "A", "*.txt"))
		var found bool
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			found = found || strings.Contains(string(b), "Output from bot: "+marker)
		}
		if !found {
			t.Errorf("no log of round 0 says the bot ran with the virtualenv's python: %v", logs)
		}
	})
}
