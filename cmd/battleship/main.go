// Command battleship plays one match between bots on this machine, with the
// original Entelect 2017 engine's flags and no database. It is the same
// match runner the platform's worker uses. Its subcommands view replays
// and, through the portal's API, submit bots and fetch matches and replays.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/match"
	"github.com/broadside/broadside/internal/sandbox"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, rulesets.Registry(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitPlayed = 0
	exitFailed = 1
	exitUsage  = 2
)

// run is the whole command, for the games of rules; it returns the exit
// status.
func run(ctx context.Context, rules *game.Registry, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "view" {
		return viewCommand(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "duel" {
		return duelCommand(ctx, rules, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "repro" {
		return reproCommand(ctx, rules, args[1:], stdout, stderr)
	}
	if len(args) > 0 {
		if cmd, ok := clientCommands[args[0]]; ok {
			return cmd(ctx, clientEnv{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, rules: rules}, args[1:])
		}
	}
	c, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "battleship: %v\n\n%s", err, usage)
		return exitUsage
	}
	if c.help {
		fmt.Fprint(stdout, usage)
		return exitPlayed
	}
	level := slog.LevelWarn
	if c.debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if err := play(ctx, rules, c, stdin, stdout, stderr, log); err != nil {
		fmt.Fprintf(stderr, "battleship: %v\n", err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		return exitFailed
	}
	return exitPlayed
}

func play(ctx context.Context, rules *game.Registry, c config, stdin io.Reader, stdout, stderr io.Writer, log *slog.Logger) error {
	loader := match.NewLoader(rules)
	runner, release, err := newRunner(ctx, c.sandbox, log)
	if err != nil {
		return err
	}
	defer release()
	if c.rebuild {
		// On stderr, so that with --json the summary stays stdout's last line.
		if err := buildBots(ctx, c.bots, runner, loader, stderr); err != nil {
			return err
		}
	}
	seatTmp, err := os.MkdirTemp("", "battleship-seats-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(seatTmp)
	dirs, err := ownFolders(c.bots, seatTmp, stderr)
	if err != nil {
		return err
	}
	bots, manifestGame := loader.LoadBots(dirs)
	name := c.game
	if name == "" {
		name = manifestGame
	}
	if name == "" {
		name = botmeta.DefaultGame
	}
	rs, err := rules.Get(name)
	if err != nil {
		return fmt.Errorf("%w: --game: %v", errUsage, err)
	}
	warnLoadErrors(stderr, bots)
	consoles := c.consoles
	if consoles == 0 && len(bots) == 0 {
		// As the original: no players at all means humans on both sides.
		consoles, _ = rs.Seats()
	}
	seats := make([]game.Bot, 0, consoles+len(bots))
	in := bufio.NewReader(stdin) // one reader shared by every console player
	for i := range consoles {
		seats = append(seats, game.Bot{Name: fmt.Sprintf("Console Player %d", i+1), Console: &game.Console{In: in, Out: stdout}})
	}
	seats = append(seats, bots...)

	seed := c.seed
	if !c.seedSet {
		if seed, err = randomSeed(); err != nil {
			return err
		}
	}
	replayDir, err := replayFolder(c.logDir, seed)
	if err != nil {
		return err
	}
	cal, err := botexec.NewCalibrator(runner, loader.Runtimes, "")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cal.Dir())

	opts := game.Options{
		Seed: seed, Size: c.size, ReplayDir: replayDir, NoLimit: c.noLimit, Tournament: c.tournament,
		Debug: c.debug, Runner: runner, Logger: log,
	}
	if c.clog {
		opts.EngineLog = stdout
	}
	if c.pretty {
		opts.Pretty = stdout
	}
	if c.debug {
		// The rule set shows the bot's output with the --pretty drawing or
		// the --clog log; without them, on stderr, as the prompt is, so
		// that with --json the summary stays stdout's last line.
		opts.DebugLog = stderr
		opts.Halt = func(ctx context.Context) error { return waitForEnter(ctx, in, stderr, "Press Enter to continue.") }
	}
	m := newMatch(rs, seats, opts, runner, cal, loader.Runtimes)
	sum, err := m.Play(ctx)
	if err != nil {
		return err
	}
	if err := writeBotLogs(rs.Traits(), replayDir, sum); err != nil {
		return err
	}
	if c.json {
		fmt.Fprintf(stderr, "Replay: %s\n", replayDir)
		b, err := json.Marshal(sum)
		if err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		printSummary(stdout, sum, replayDir)
	}
	if c.pretty && isTerminal(stdin) {
		// On stderr, so that with --json the summary stays the last line.
		fmt.Fprint(stderr, "Press Enter to exit.")
		_, _ = in.ReadString('\n')
	}
	return nil
}

// newMatch is a match as this command plays it, one game of a duel
// included: with the bubblewrap runner, as the platform plays, one sandbox
// per bot for the whole match, each turn seeing only its own round folder,
// so the bots of a round may run at once.
func newMatch(rs game.RuleSet, seats []game.Bot, opts game.Options, runner sandbox.Runner, cal *botexec.Calibrator, rt *botexec.Runtimes) match.Match {
	m := match.Match{RuleSet: rs, Bots: seats, Options: opts, Calibrator: cal, Runtimes: rt}
	if b, ok := runner.(*sandbox.Bwrap); ok {
		m.SeatRunner = match.SessionSeats(b, sandbox.Limits{})
		m.Options.ConfinedTurns = true
	}
	return m
}

// waitForEnter is --debug's halt: it prints prompt on w and returns once a
// line (or the end of input) is read from in, the reader console players
// share, or when ctx ends. At the end of input it returns at once, so
// scripts never hang.
func waitForEnter(ctx context.Context, in *bufio.Reader, w io.Writer, prompt string) error {
	fmt.Fprintln(w, prompt)
	read := make(chan struct{})
	go func() {
		// After a cancellation this read may outlive the wait; the match is
		// ending then and nothing else reads stdin.
		_, _ = in.ReadString('\n')
		close(read)
	}()
	select {
	case <-read:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newRunner returns the bubblewrap runner when asked for and enforceable
// here, else the host runner, and what gives back the cgroups it took.
func newRunner(ctx context.Context, confined bool, log *slog.Logger) (sandbox.Runner, func(), error) {
	if !confined {
		return sandbox.NewHost(sandbox.HostConfig{}), func() {}, nil
	}
	cgroups, err := sandbox.Delegate(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("--sandbox: this machine cannot confine bots: %w", err)
	}
	log.Debug("cgroups for the sandbox", "version", cgroups.Version, "how", cgroups.How, "dir", cgroups.Dir)
	if err := sandbox.Require(sandbox.Probe(ctx)); err != nil {
		cgroups.Close()
		return nil, nil, fmt.Errorf("--sandbox: this machine cannot confine bots: %w", err)
	}
	b, err := sandbox.NewMatchSandbox(log)
	if err != nil {
		cgroups.Close()
		return nil, nil, fmt.Errorf("--sandbox: %w", err)
	}
	return b, cgroups.Close, nil
}

// replayFolder is -l made absolute (bots run in their own folders, so a
// relative path would point elsewhere for them), else Replays/{seed} in
// the current folder, with a suffix when that is taken.
func replayFolder(logDir string, seed int64) (string, error) {
	if logDir != "" {
		abs, err := filepath.Abs(logDir)
		if err != nil {
			return "", fmt.Errorf("replay folder: %w", err)
		}
		return abs, nil
	}
	base, err := filepath.Abs(filepath.Join("Replays", strconv.FormatInt(seed, 10)))
	if err != nil {
		return "", fmt.Errorf("replay folder: %w", err)
	}
	dir := base
	for n := 2; ; n++ {
		if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
			return dir, nil
		}
		dir = fmt.Sprintf("%s-%d", base, n)
	}
}

// randomSeed draws a non-negative seed, so that it prints and parses back.
func randomSeed() (int64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("seed: %w", err)
	}
	return int64(binary.BigEndian.Uint64(b[:]) >> 1), nil
}

func printSummary(w io.Writer, s *game.Summary, replayDir string) {
	winner := "none"
	if s.Winner != nil {
		winner = *s.Winner
	}
	fmt.Fprintf(w, "Game %s, seed %d, %d rounds. Winner: %s\n", s.Game, s.Seed, s.Rounds, winner)
	for _, p := range s.Players {
		fmt.Fprintf(w, "  %d. %s (%s): %d points, %d ships left, %d/%d shots landed", p.Rank, p.Name, p.Key, p.Points,
			p.ShipsLeft, p.ShotsLanded, p.ShotsFired)
		if p.Reason != "" {
			fmt.Fprintf(w, "; %s", p.Reason)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Replay: %s\n", replayDir)
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// writeBotLogs puts each bot's own log of the match in the replay folder,
// as <key>/log.txt, unless the rule set writes them itself (Entelect, round
// by round). The portal does not do this: there a bot's log goes to its
// owner only.
func writeBotLogs(traits game.Traits, replayDir string, sum *game.Summary) error {
	if traits.WritesBotLogs {
		return nil
	}
	for i, p := range sum.Players {
		key := p.Key
		if key == "" || !filepath.IsLocal(key) || strings.ContainsAny(key, `/\`) {
			key = fmt.Sprint(i)
		}
		dir := filepath.Join(replayDir, key)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("bot log: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "log.txt"), []byte(p.Log), 0o644); err != nil {
			return fmt.Errorf("bot log: %w", err)
		}
	}
	return nil
}
