package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/match"
	"github.com/broadside/broadside/internal/sandbox"
)

// play is the command without a subcommand: one match of the bot folders
// of c, for the games of rules.
func play(ctx context.Context, rules *game.Registry, c config, stdin io.Reader, stdout, stderr io.Writer, log *slog.Logger) error {
	loader := match.NewLoader(rules)
	runner, release, err := newRunner(ctx, c.sandbox, log)
	if err != nil {
		return err
	}
	defer release()
	if c.rebuild {
		// On stderr, so that with --json the summary stays stdout's last line.
		if err := buildBots(ctx, c.bots, runner, c.sandbox, loader, stderr); err != nil {
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
	rs, err := chooseRuleSet(rules, c.game, manifestGame)
	if err != nil {
		return err
	}
	warnLoadErrors(stderr, bots)
	in := bufio.NewReader(stdin) // one reader shared by every console player
	seats := withConsoles(c.consoles, rs, bots, in, stdout)

	seed := c.seed
	if !c.seedSet {
		if seed, err = match.RandomSeed(); err != nil {
			return err
		}
	}
	replayDir, err := match.ReplayFolder(c.logDir, seed)
	if err != nil {
		return err
	}
	cal, err := botexec.NewCalibrator(runner, loader.Runtimes, "")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cal.Dir())

	opts := matchOptions(c, seed, replayDir, runner, log, in, stdout, stderr)
	sum, err := newMatch(rs, seats, opts, runner, cal, loader.Runtimes).Play(ctx)
	if err != nil {
		return err
	}
	if err := match.WriteBotLogs(rs.Traits(), replayDir, sum); err != nil {
		return err
	}
	if err := report(c.json, sum, replayDir, stdout, stderr); err != nil {
		return err
	}
	if c.pretty && isTerminal(stdin) {
		// On stderr, so that with --json the summary stays the last line.
		fmt.Fprint(stderr, "Press Enter to exit.")
		_, _ = in.ReadString('\n')
	}
	return nil
}

// chooseRuleSet is the rule set of --game, else the one the bots'
// manifests agree on, else botmeta.DefaultGame.
func chooseRuleSet(rules *game.Registry, flag, manifestGame string) (game.RuleSet, error) {
	name := flag
	if name == "" {
		name = manifestGame
	}
	if name == "" {
		name = botmeta.DefaultGame
	}
	rs, err := rules.Get(name)
	if err != nil {
		return nil, fmt.Errorf("%w: --game: %v", errUsage, err)
	}
	return rs, nil
}

// withConsoles puts consoles console players, reading from in, before the
// bots. As the original: no players at all means humans in every seat.
func withConsoles(consoles int, rs game.RuleSet, bots []game.Bot, in *bufio.Reader, out io.Writer) []game.Bot {
	if consoles == 0 && len(bots) == 0 {
		consoles, _ = rs.Seats()
	}
	seats := make([]game.Bot, 0, consoles+len(bots))
	for i := range consoles {
		seats = append(seats, game.Bot{Name: fmt.Sprintf("Console Player %d", i+1), Console: &game.Console{In: in, Out: out}})
	}
	return append(seats, bots...)
}

// matchOptions are the rule set's options of the flags of c.
func matchOptions(c config, seed int64, replayDir string, runner sandbox.Runner, log *slog.Logger, in *bufio.Reader, stdout, stderr io.Writer) game.Options {
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
	return opts
}

// report prints the match's summary: with asJSON, as one JSON line on
// stdout with the replay folder on stderr; else for people.
func report(asJSON bool, sum *game.Summary, replayDir string, stdout, stderr io.Writer) error {
	if !asJSON {
		printSummary(stdout, sum, replayDir)
		return nil
	}
	fmt.Fprintf(stderr, "Replay: %s\n", replayDir)
	b, err := json.Marshal(sum)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return nil
}

// newRunner is match.LocalRunner for --sandbox.
func newRunner(ctx context.Context, confined bool, log *slog.Logger) (sandbox.Runner, func(), error) {
	r, release, err := match.LocalRunner(ctx, confined, log)
	if err != nil {
		return nil, nil, fmt.Errorf("--sandbox: %w", err)
	}
	return r, release, nil
}

// newMatch is a match as this command plays it, one game of a duel
// included: with the bubblewrap runner, as the platform plays it.
func newMatch(rs game.RuleSet, seats []game.Bot, opts game.Options, runner sandbox.Runner, cal *botexec.Calibrator, rt *botexec.Runtimes) match.Match {
	m := match.Match{RuleSet: rs, Bots: seats, Options: opts, Calibrator: cal, Runtimes: rt}
	m.Sandbox(runner, sandbox.Limits{}, nil)
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
