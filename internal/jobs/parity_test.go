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
	"github.com/broadside/broadside/internal/repro"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testenv"
)

// parityBot is one bot folder of the parity corpus (testdata/parity),
// shaped like the real bots of the original competitions.
type parityBot struct {
	dir string // under testdata/parity
	// starter, when set, is a starter bot's script the test puts in the
	// folder as script, behind "#!/usr/bin/env python".
	starter, script string
	// ship, when set, replaces the Hit and Sunk starter's ship choice, so
	// that the seats of a free-for-all are different bots.
	ship int
	// needs are the programs the bot cannot play without; the test fails
	// when one is missing (scripts/setup.sh installs them all).
	needs []string
	// bot, when set, is a starter bot under bots/ copied whole into the
	// corpus folder (dir need not exist in testdata/parity).
	bot string
}

var parityBots = []parityBot{
	// Aimless Amy and Aleatory Alex: Python 3 code behind #!/usr/bin/env python.
	{dir: "deepship-env-python", needs: []string{"python3"}, starter: "deepship-python3/src/main.py", script: "main.py"},
	{dir: "entelect-env-python", needs: []string{"python3"}},
	// The Hit and Sunk starter keeps a state file in its folder between
	// calls, so each seat must play from its own folder.
	{dir: "hitandsunk-env-python", needs: []string{"python3"}, starter: "hitandsunk-python3/bot.py", script: "bot.py"},
	{dir: "hitandsunk-cruiser", needs: []string{"python3"}, starter: "hitandsunk-python3/bot.py", script: "bot.py", ship: 3},
	{dir: "hitandsunk-destroyer", needs: []string{"python3"}, starter: "hitandsunk-python3/bot.py", script: "bot.py", ship: 1},
	{dir: "hitandsunk-carrier", needs: []string{"python3"}, starter: "hitandsunk-python3/bot.py", script: "bot.py", ship: 5},
	// BrainJar run.sh bots, as the original template wrote them. They
	// have no manifest: each is named for its folder.
	{dir: "brainjar-python", needs: []string{"python3"}},
	// Python 2 only: BrainJar's "python" must be a Python 2.7 for it
	// (TestParity requires one). Where it is Python 3 the bot crashes
	// with a note in its log, which internal/botexec's tests check
	// without depending on the machine.
	{dir: "brainjar-python2", needs: []string{"python3"}},
	{dir: "brainjar-coffee", needs: []string{"coffee"}},
	{dir: "brainjar-node", needs: []string{"node"}},
	{dir: "brainjar-ruby-noexec", needs: []string{"ruby"}},
	{dir: "brainjar-perl", needs: []string{"perl"}},
	{dir: "brainjar-java", needs: []string{"java", "javac", "jar"}},
	// C#: the Entelect starter, a classic .csproj built by xbuild and run
	// by mono, in the worker's build and ahead of the command's runs.
	{dir: "entelect-csharp", needs: []string{"mono", "xbuild"}, bot: "entelect-csharp"},
}

// parityMatch is one match of the parity test: the corpus folder of each
// seat, in seat order, and a seed on which the bots fight.
//
// The Hit and Sunk seeds were chosen by playing each match with the
// battleship command (--nolimit) on seeds 1, 2, 3, … and taking the first
// on which every seat lands shots: on most, ships sail a grid of 32 to 34
// cells a side for 100 rounds without meeting, or one ship is sunk before
// it fires. The two-player games keep seed 7: their bots hunt the whole
// board, so both land shots on any seed (Entelect draws nothing from it;
// BrainJar and In Deep Ship draw who starts). The test checks that every
// seat still lands shots, so a seed that stops meaning a fight fails
// rather than passing quietly.
type parityMatch struct {
	name  string
	game  string
	size  int // map size, 0 for the game's default
	seed  int64
	seats []string
	// oneBot uploads the seats' folder once and seats that one bot in
	// every seat; otherwise each seat is a bot of its own.
	oneBot bool
}

var parityMatches = []parityMatch{
	// The Python bot against the C# one: each seat's parity is its own,
	// and mono starts once a turn, so one C# seat costs half of two.
	{name: "entelect", game: "entelect", size: 1, seed: 7, seats: []string{"entelect-env-python", "entelect-csharp"}},
	{name: "deepship", game: "deepship", seed: 7, seats: twice("deepship-env-python")},
	{name: "hitandsunk-2", game: "hitandsunk", seed: 3, seats: []string{"hitandsunk-env-python", "hitandsunk-cruiser"}},
	// One bot in three seats: the worker unpacks it for each; the command
	// names its folder three times and plays each later seat from a copy.
	// The bot keeps a state file in its folder: seats sharing one folder
	// read each other's and play another game than the worker's.
	{name: "hitandsunk-one-bot", game: "hitandsunk", seed: 3, oneBot: true,
		seats: []string{"hitandsunk-env-python", "hitandsunk-env-python", "hitandsunk-env-python"}},
	{name: "hitandsunk-3", game: "hitandsunk", seed: 3,
		seats: []string{"hitandsunk-env-python", "hitandsunk-cruiser", "hitandsunk-destroyer"}},
	{name: "hitandsunk-4", game: "hitandsunk", seed: 22,
		seats: []string{"hitandsunk-env-python", "hitandsunk-cruiser", "hitandsunk-destroyer", "hitandsunk-carrier"}},
	// The BrainJar bots play one strategy in seven languages: two
	// languages a match, each seat's parity its own.
	{name: "brainjar-python", game: "brainjar", seed: 7, seats: []string{"brainjar-python", "brainjar-python2"}},
	{name: "brainjar-coffee", game: "brainjar", seed: 7, seats: []string{"brainjar-coffee", "brainjar-node"}},
	{name: "brainjar-ruby-noexec", game: "brainjar", seed: 7, seats: []string{"brainjar-ruby-noexec", "brainjar-perl"}},
	{name: "brainjar-java", game: "brainjar", seed: 7, seats: []string{"brainjar-java", "brainjar-python"}},
}

func twice(dir string) []string { return []string{dir, dir} }

// TestParity plays every parity match three ways and requires the same
// replay from each, file by file: uploaded, built and played by a real
// worker in its sandbox; then, from the battleship command the match's
// page shows (repro), on the host and in the sandbox (--sandbox), with
// the bots laid out in the folders that command names. Time limits are
// lifted in all three so that a busy machine cannot tell them apart. What
// may differ (time stamps, paths, measured times) is listed in
// replayExemptions. The bots must fight: a bot that plays outside must not
// lose inside for a reason of the sandbox's own (a missing interpreter, a
// file it cannot see), and a seed on which nobody hits proves little.
func TestParity(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays real bots in the sandbox")
	}
	bots := map[string]parityBot{}
	for _, b := range parityBots {
		testenv.RequireProgram(t, b.needs...)
		bots[b.dir] = b
	}
	ctx := context.Background()
	testenv.RequireErr(t, "an enforced sandbox", sandbox.Require(sandbox.Probe(ctx)))
	progs, err := botexec.NewRuntimes().Programs(botexec.Python2First)
	if err != nil {
		t.Fatal(err)
	}
	// Setup provides a Python 2.7; without one the Python 2 bot cannot
	// show that the three ways of playing agree.
	testenv.Require(t, "a Python 2.7 for BrainJar's python", progs.Note == "", progs.Note)

	tmp := t.TempDir()
	bin := testenv.GoBinary(t, "github.com/broadside/broadside/cmd/battleship")
	corpus := filepath.Join(tmp, "corpus")
	makeCorpus(t, corpus, tmp)

	e := setup(t)
	startParityWorker(t, e, t.TempDir())

	// Upload everything first, so the worker builds while matches play.
	versions := map[string][]int64{}
	for _, m := range parityMatches {
		for i, dir := range m.seats {
			if m.oneBot && i > 0 {
				versions[m.name] = append(versions[m.name], versions[m.name][0])
				continue
			}
			data := zipDir(t, filepath.Join(corpus, dir), nil)
			versions[m.name] = append(versions[m.name], e.upload(t, fmt.Sprintf("%s-%d", m.name, i), data))
		}
	}
	// Queue each match once its bots are built, so the worker plays them
	// while the command does.
	queued := map[string]int64{}
	for _, m := range parityMatches {
		queued[m.name] = queueParityMatch(t, e, m, versions[m.name])
	}
	for _, m := range parityMatches {
		t.Run(m.name, func(t *testing.T) {
			row, portal := workerPlayed(t, e, m, queued[m.name])
			t.Logf("worker:  %s", outcome(portal.summary))

			// The command of the match's page, run where the bots are
			// in the folders it names, fresh from their uploads.
			rm := repro.ForMatch(row, rulesets.Registry())
			folders := repro.Folders(rm.Seats)
			t.Logf("replayed with: %s", repro.Command(rm))
			args := repro.Args(rm, folders)
			plain := playCommand(t, bin, layOut(t, corpus, m, folders), args, false)
			t.Logf("plain:   %s", outcome(plain.summary))
			boxed := playCommand(t, bin, layOut(t, corpus, m, folders), args, true)
			t.Logf("sandbox: %s", outcome(boxed.summary))

			if d := diffReplays(plain.files, portal.files); d != "" {
				t.Errorf("the worker's replay differs from the command's (-command +worker):\n%s", d)
			}
			if d := diffReplays(plain.files, boxed.files); d != "" {
				t.Errorf("the replay of --sandbox differs from the plain run's (-plain +sandbox):\n%s", d)
			}
			for name, r := range map[string]*parityRun{"plain": plain, "sandbox": boxed, "worker": portal} {
				if err := fought(r.summary, len(m.seats)); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		})
	}
}

// makeCorpus copies testdata/parity to dir with its files' modes, and
// puts the starter scripts in.
func makeCorpus(t *testing.T, dir, tmp string) {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "parity"))); err != nil {
		t.Fatal(err)
	}
	// os.CopyFS drops the modes the corpus depends on (the executable
	// bits, and the lack of one on a run.sh).
	copyModes(t, filepath.Join("testdata", "parity"), dir)
	for _, b := range parityBots {
		if b.bot != "" {
			if err := os.CopyFS(filepath.Join(dir, b.dir), os.DirFS(filepath.Join("..", "..", "bots", b.bot))); err != nil {
				t.Fatal(err)
			}
		}
		if b.starter == "" {
			continue
		}
		script := envPython(t, filepath.Join("..", "..", "bots", b.starter))
		if b.ship != 0 {
			const choice = "\nSHIP = 4 "
			if !bytes.Contains(script, []byte(choice)) {
				t.Fatalf("%s: no %q to change", b.starter, choice)
			}
			script = bytes.Replace(script, []byte(choice), fmt.Appendf(nil, "\nSHIP = %d ", b.ship), 1)
		}
		if err := os.WriteFile(filepath.Join(dir, b.dir, b.script), script, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The command plays bots as they are, built: as a contestant would,
	// build the C# bot first (the worker builds its upload again).
	runIn(t, filepath.Join(dir, "entelect-csharp"), "xbuild", "/nologo", "/verbosity:minimal", "/p:Configuration=Release", "StarterBot.csproj")
	java := filepath.Join(dir, "brainjar-java")
	runIn(t, java, "javac", "-d", filepath.Join(tmp, "classes"), "src/Bot.java")
	runIn(t, java, "jar", "cfe", "bot.jar", "Bot", "-C", filepath.Join(tmp, "classes"), ".")
}

// startParityWorker runs a worker with the sandboxes cmd/worker makes
// (SANDBOX=required), without time limits.
func startParityWorker(t *testing.T, e *env, workDir string) {
	t.Helper()
	sb, err := jobs.NewSandboxes(nil)
	if err != nil {
		t.Fatal(err)
	}
	runWorker(t, e, jobs.Deps{
		Pool: e.pool, Bucket: e.bucket, Games: rulesets.Registry(), WorkDir: workDir,
		Bwrap: sb.Match, Builder: build.New(sb.Build, rulesets.Registry()), TurnLimits: sandbox.TurnDefaults(), NoTimeLimits: true,
		MatchConcurrency: 2, BuildConcurrency: 2, ShutdownGrace: 10 * time.Second,
	})
}

// parityRun is one play of a match: its summary and its replay's files by
// path, bot logs included (see replayFiles).
type parityRun struct {
	summary *game.Summary
	files   map[string]string
}

// layOut makes a folder holding each seat's bot from the corpus in the
// folder the match page's command names for it, and returns it.
func layOut(t *testing.T, corpus string, m parityMatch, folders []string) string {
	t.Helper()
	dir := t.TempDir()
	for i, f := range folders {
		dst := filepath.Join(dir, filepath.FromSlash(f))
		if _, err := os.Stat(dst); err == nil {
			continue // one folder for several seats of one version
		}
		copyBot(t, filepath.Join(corpus, m.seats[i]), dst)
	}
	return dir
}

// queueParityMatch waits for the uploaded versions to be built and queues
// their match.
func queueParityMatch(t *testing.T, e *env, m parityMatch, versions []int64) int64 {
	t.Helper()
	var bots []int64
	for _, v := range versions {
		got := e.waitBuilt(t, v, 20*time.Minute)
		if got.BuildStatus != store.BuildOK {
			t.Fatalf("%s: build of version %d: %s\n%s", m.name, v, got.BuildStatus, got.BuildLog)
		}
		bots = append(bots, got.BotID)
	}
	// A bot is rated once per match: one in every seat plays unranked.
	p := store.MatchCreateParams{Game: m.game, MapSize: m.size, Seed: m.seed, Kind: "ladder", Ranked: true}
	if m.oneBot {
		p.Kind, p.Ranked = "challenge", false
	}
	return e.queueMatch(t, p, bots)
}

// workerPlayed waits for the worker to play match id and returns the
// match and its replay as the platform stores it.
func workerPlayed(t *testing.T, e *env, m parityMatch, id int64) (*store.MatchRow, *parityRun) {
	t.Helper()
	row := e.waitMatch(t, id, 20*time.Minute)
	if row.Status != store.MatchFinished {
		t.Fatalf("match %s: %s", row.Status, row.Error)
	}
	var sum game.Summary
	if err := json.Unmarshal(row.Summary, &sum); err != nil {
		t.Fatalf("summary: %v", err)
	}
	rs, err := rulesets.Registry().Get(m.game)
	if err != nil {
		t.Fatal(err)
	}
	files, err := storedReplay(e.ctx, e.bucket, row, rs.Traits())
	if err != nil {
		t.Fatal(err)
	}
	return row, &parityRun{summary: &sum, files: files}
}

// playCommand plays one match with the battleship command in dir, with
// args, the time limits lifted, and returns its summary and replay.
func playCommand(t *testing.T, bin, dir string, args []string, confined bool) *parityRun {
	t.Helper()
	replay := filepath.Join(t.TempDir(), "replay")
	args = append([]string{"--nolimit", "--json", "-l", replay}, args...)
	if confined {
		args = append([]string{"--sandbox"}, args...)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
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
	files, err := folderReplay(replay)
	if err != nil {
		t.Fatal(err)
	}
	return &parityRun{summary: &sum, files: files}
}

// fought says whether the bots really played: nobody lost for failing to
// run, and they hit each other: every seat lands shots.
func fought(s *game.Summary, seats int) error {
	hitting := 0
	for _, p := range s.Players {
		for _, bad := range []string{"crash", "could not", "not loaded", "timed out", "ended", "forfeit"} {
			if strings.Contains(p.Reason, bad) {
				return fmt.Errorf("player %s: %s", p.Key, p.Reason)
			}
		}
		if p.ShotsLanded > 0 {
			hitting++
		}
	}
	if want := max(2, seats); hitting < want {
		return fmt.Errorf("%d of %d seats landed shots: %s", hitting, seats, outcome(s))
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

// envPython returns the Python 3 script src behind the #! line of the
// real In Deep Ship entries.
func envPython(t *testing.T, src string) []byte {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(data, []byte("#!")) {
		_, data, _ = bytes.Cut(data, []byte("\n"))
	}
	return append([]byte("#!/usr/bin/env python\n"), data...)
}

// copyBot copies a bot folder with its files' modes, as an owner keeps it.
func copyBot(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	copyModes(t, src, dst)
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
