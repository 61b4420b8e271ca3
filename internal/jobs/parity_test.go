package jobs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/build"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testenv"
)

// parityBot is one bot of the parity corpus (testdata/parity), shaped like
// the real bots of the original competitions.
type parityBot struct {
	dir   string // under testdata/parity
	game  string
	seats int
	size  int // map size, 0 for the game's default
	// starter, when set, is a starter bot's script the test puts in the
	// folder as script, behind "#!/usr/bin/env python".
	starter, script string
	// needs are the programs the bot cannot play without; the test fails
	// when one is missing (scripts/setup.sh installs them all).
	needs []string
	// python2 marks a bot in Python 2 only: it plays where BrainJar's
	// "python" is a Python 2.7 and crashes, with a note in its log,
	// where it is Python 3 (Debian 12 has no Python 2.7).
	python2 bool
	// seed, when set, replaces the corpus's seed for this bot: one on
	// which its copies meet and fire.
	seed int64
}

var parityCorpus = []parityBot{
	// Aimless Amy and Aleatory Alex: Python 3 code behind #!/usr/bin/env python.
	{dir: "deepship-env-python", game: "deepship", seats: 2, needs: []string{"python3"},
		starter: "deepship-python3/src/main.py", script: "main.py"},
	{dir: "entelect-env-python", game: "entelect", seats: 2, size: 1, needs: []string{"python3"}},
	// On the corpus's seed the three copies sail all 100 rounds without
	// meeting; on seed 1 they fight. The bot keeps a state file in its
	// folder, so the command, given one folder three times, must give
	// each seat its own copy as the worker does.
	{dir: "hitandsunk-env-python", game: "hitandsunk", seats: 3, seed: 1, needs: []string{"python3"},
		starter: "hitandsunk-python3/bot.py", script: "bot.py"},
	// BrainJar run.sh bots, as the original template wrote them.
	{dir: "brainjar-python", game: "brainjar", seats: 2, needs: []string{"python3"}},
	{dir: "brainjar-python2", game: "brainjar", seats: 2, needs: []string{"python3"}, python2: true},
	{dir: "brainjar-coffee", game: "brainjar", seats: 2, needs: []string{"coffee"}},
	{dir: "brainjar-node", game: "brainjar", seats: 2, needs: []string{"node"}},
	{dir: "brainjar-ruby-noexec", game: "brainjar", seats: 2, needs: []string{"ruby"}},
	{dir: "brainjar-perl", game: "brainjar", seats: 2, needs: []string{"perl"}},
	{dir: "brainjar-java", game: "brainjar", seats: 2, needs: []string{"java", "javac", "jar"}},
	// C# slot: a BrainJar or Entelect bot shipped as a .exe run by mono
	// goes here, with needs "mono".
}

// TestParity plays every corpus bot against copies of itself three ways on
// a fixed seed: with the battleship command on the host, with it in the
// sandbox (--sandbox), and uploaded, built and played by a real worker in
// its sandbox. The summaries must be equal, and the bots must play: a bot
// that plays outside must not lose inside for a reason of the sandbox's
// own (a missing interpreter, a file it cannot see). Time limits are
// lifted in all three so that a busy machine cannot tell them apart.
func TestParity(t *testing.T) {
	if testing.Short() {
		t.Skip("plays real bots in the sandbox")
	}
	for _, b := range parityCorpus {
		testenv.RequireProgram(t, b.needs...)
	}
	ctx := context.Background()
	testenv.RequireErr(t, "an enforced sandbox", sandbox.Require(sandbox.Probe(ctx)))
	progs, err := botexec.NewRuntimes().Programs(botexec.Python2First)
	if err != nil {
		t.Fatal(err)
	}
	hasPython2 := progs.Note == ""

	tmp := t.TempDir()
	bin := filepath.Join(tmp, "battleship")
	runIn(t, ".", "go", "build", "-o", bin, "../../cmd/battleship")
	corpus := filepath.Join(tmp, "corpus")
	if err := os.CopyFS(corpus, os.DirFS(filepath.Join("testdata", "parity"))); err != nil {
		t.Fatal(err)
	}
	// os.CopyFS drops the modes the corpus depends on (the executable
	// bits, and the lack of one on a run.sh).
	copyModes(t, filepath.Join("testdata", "parity"), corpus)
	for _, b := range parityCorpus {
		if b.starter != "" {
			envPython(t, filepath.Join("..", "..", "bots", b.starter), filepath.Join(corpus, b.dir, b.script))
		}
	}
	java := filepath.Join(corpus, "brainjar-java")
	runIn(t, java, "javac", "-d", filepath.Join(tmp, "classes"), "src/Bot.java")
	runIn(t, java, "jar", "cfe", "bot.jar", "Bot", "-C", filepath.Join(tmp, "classes"), ".")

	e := setup(t)
	startParityWorker(t, e, t.TempDir())

	// Upload everything first, so the worker builds while the command plays.
	versions := map[string][]int64{}
	for _, b := range parityCorpus {
		data := zipDir(t, filepath.Join(corpus, b.dir), nil)
		for i := range b.seats {
			versions[b.dir] = append(versions[b.dir], e.upload(t, fmt.Sprintf("%s-%d", b.dir, i+1), data))
		}
	}
	for _, b := range parityCorpus {
		t.Run(b.dir, func(t *testing.T) {
			seed := int64(7)
			if b.seed != 0 {
				seed = b.seed
			}
			dirs := make([]string, b.seats)
			for i := range dirs {
				dirs[i] = filepath.Join(corpus, b.dir)
			}
			plain, plainLogs := playCommand(t, bin, b, seed, dirs, false)
			t.Logf("plain:   %s", outcome(plain))
			boxed, boxedLogs := playCommand(t, bin, b, seed, dirs, true)
			t.Logf("sandbox: %s", outcome(boxed))
			worker, workerLogs := playWorker(t, e, b, versions[b.dir], seed)
			t.Logf("worker:  %s", outcome(worker))

			if d := summaryDiff(plain, boxed); d != "" {
				t.Errorf("--sandbox differs from the plain run: %s", d)
			}
			if d := summaryDiff(plain, worker); d != "" {
				t.Errorf("the worker differs from the plain run: %s", d)
			}
			if b.python2 && !hasPython2 {
				// Python 3 cannot run it: every run fails alike, and says why.
				for _, logs := range [][]string{plainLogs, boxedLogs, workerLogs} {
					if len(logs) == 0 || !strings.Contains(logs[0], "python is Python 3 on this machine") {
						t.Errorf("no note about python in the bot's log:\n%s", strings.Join(logs, "\n---\n"))
					}
				}
				return
			}
			for name, s := range map[string]*game.Summary{"plain": plain, "sandbox": boxed, "worker": worker} {
				if err := played(s); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		})
	}
}

// startParityWorker runs a worker that plays in the sandbox without time
// limits and builds in the sandbox.
func startParityWorker(t *testing.T, e *env, workDir string) {
	t.Helper()
	bw, err := sandbox.NewBwrap(sandbox.BwrapConfig{})
	if err != nil {
		t.Fatal(err)
	}
	buildRunner, err := sandbox.NewBwrap(sandbox.BwrapConfig{DiskBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	runWorker(t, e, jobs.Deps{
		Pool: e.pool, Bucket: e.bucket, Games: rulesets.Registry(), WorkDir: workDir, Bwrap: bw,
		Builder: build.New(buildRunner), NoTimeLimits: true,
		MatchConcurrency: 2, BuildConcurrency: 2, ShutdownGrace: 10 * time.Second,
	})
}

// playCommand plays one match with the battleship command as the worker
// does (tournament mode, no time limits) and returns its summary and each
// seat's log from the replay folder.
func playCommand(t *testing.T, bin string, b parityBot, seed int64, dirs []string, confined bool) (*game.Summary, []string) {
	t.Helper()
	replay := filepath.Join(t.TempDir(), "replay")
	args := []string{"--game", b.game, "--seed", fmt.Sprint(seed), "--json", "--nolimit", "--tournamentMode", "-l", replay}
	if b.size != 0 {
		args = append(args, "--size", fmt.Sprint(b.size))
	}
	if confined {
		args = append(args, "--sandbox")
	}
	args = append(append(args, "-b"), dirs...)
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("battleship %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	if strings.Contains(errOut.String(), "warning") {
		t.Errorf("battleship warns about a bot that plays: %s", errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var sum game.Summary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, out.String())
	}
	var logs []string
	if b.game == "entelect" {
		return &sum, logs
	}
	for i := range dirs {
		// The local replay folder holds each bot's log (docs/battleship-command.md).
		data, err := os.ReadFile(filepath.Join(replay, fmt.Sprint(i), "log.txt"))
		if err != nil {
			t.Fatalf("bot log of seat %d: %v", i, err)
		}
		logs = append(logs, string(data))
	}
	return &sum, logs
}

// playWorker builds the uploaded versions and plays them in a ranked match
// through the worker.
func playWorker(t *testing.T, e *env, b parityBot, versions []int64, seed int64) (*game.Summary, []string) {
	t.Helper()
	var bots []int64
	for _, v := range versions {
		got := e.waitBuilt(t, v, 20*time.Minute)
		if got.BuildStatus != store.BuildOK {
			t.Fatalf("build of %s: %s\n%s", b.dir, got.BuildStatus, got.BuildLog)
		}
		bots = append(bots, got.BotID)
	}
	id := e.createGameMatch(t, b.game, b.size, seed, bots...)
	m := e.waitMatch(t, id, 20*time.Minute)
	if m.Status != store.MatchFinished {
		t.Fatalf("match %s: %s", m.Status, m.Error)
	}
	var sum game.Summary
	if err := json.Unmarshal(m.Summary, &sum); err != nil {
		t.Fatalf("summary: %v", err)
	}
	logs := make([]string, len(m.Players))
	for _, p := range m.Players {
		if p.Seat >= 0 && p.Seat < len(logs) {
			logs[p.Seat] = p.Log
		}
	}
	return &sum, logs
}

// summaryDiff compares what the bots did (not their names, which the
// platform takes from the bot rather than the manifest, and gives the
// rule set to name one bot in another's reason: "sunk by Kraken (ann)").
func summaryDiff(a, b *game.Summary) string {
	strip := func(s *game.Summary) string {
		c := *s
		c.Players = append([]game.PlayerSummary(nil), s.Players...)
		for i := range c.Players {
			c.Players[i].Name = ""
			if by, ok := strings.CutPrefix(c.Players[i].Reason, "sunk by "); ok && by != "its own fire or mine" {
				c.Players[i].Reason = "sunk by another ship"
			}
		}
		out, _ := json.Marshal(c)
		return string(out)
	}
	if x, y := strip(a), strip(b); x != y {
		return fmt.Sprintf("\n%s\nvs\n%s", x, y)
	}
	return ""
}

// played says whether the bots really played: shots were fired,
// and nobody lost for failing to run.
func played(s *game.Summary) error {
	shots := 0
	for _, p := range s.Players {
		shots += p.ShotsFired
		for _, bad := range []string{"crash", "could not", "not loaded", "timed out", "ended", "forfeit"} {
			if strings.Contains(p.Reason, bad) {
				return fmt.Errorf("player %s: %s", p.Key, p.Reason)
			}
		}
	}
	if shots == 0 {
		return fmt.Errorf("no shots fired: %s", outcome(s))
	}
	return nil
}

func outcome(s *game.Summary) string {
	var parts []string
	for _, p := range s.Players {
		parts = append(parts, fmt.Sprintf("%s: %d shots, %d landed, rank %d %s", p.Key, p.ShotsFired, p.ShotsLanded, p.Rank, p.Reason))
	}
	return strings.Join(parts, "; ")
}

// envPython writes the Python 3 script src to dst, executable, behind the
// #! line of the real In Deep Ship entries.
func envPython(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(data, []byte("#!")) {
		_, data, _ = bytes.Cut(data, []byte("\n"))
	}
	if err := os.WriteFile(dst, append([]byte("#!/usr/bin/env python\n"), data...), 0o755); err != nil {
		t.Fatal(err)
	}
}

// copyModes gives each file under dst the permission bits of its twin
// under src.
func copyModes(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return os.Chmod(filepath.Join(dst, rel), st.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func runIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
