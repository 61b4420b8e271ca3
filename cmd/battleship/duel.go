package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/duel"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/match"
	"github.com/broadside/broadside/internal/sandbox"
)

// duelCommand is `battleship duel`; it returns the exit status.
func duelCommand(ctx context.Context, rules *game.Registry, args []string, stdout, stderr io.Writer) int {
	c, err := parseDuelArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "battleship duel: %v\n\n%s", err, duelUsage)
		return exitUsage
	}
	if c.help {
		fmt.Fprint(stdout, duelUsage)
		return exitPlayed
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := runDuel(ctx, rules, c, stdout, stderr, log); err != nil {
		fmt.Fprintf(stderr, "battleship duel: %v\n", err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		return exitFailed
	}
	return exitPlayed
}

// duelist is one side of a duel: the folder as given, the folder itself
// (absolute, links resolved), and the bot as loaded after its build.
type duelist struct {
	arg, dir string
	bot      game.Bot
}

// duelSetup is what every game of a duel shares.
type duelSetup struct {
	rs      game.RuleSet
	sides   [2]duelist
	runner  sandbox.Runner
	cal     *botexec.Calibrator
	loader  *match.Loader
	size    int
	tmp     string
	log     *slog.Logger
	started time.Time
}

func runDuel(ctx context.Context, rules *game.Registry, c duelConfig, stdout, stderr io.Writer, log *slog.Logger) error {
	s := duelSetup{loader: match.NewLoader(rules), size: c.size, log: log}
	// Bad folders are command-line mistakes, found before anything runs.
	for i, arg := range c.dirs {
		dir, err := folderKey(arg)
		if err != nil {
			return fmt.Errorf("%w: bot folder %s: %v", errUsage, arg, err)
		}
		m, err := botmeta.Load(dir)
		if err == nil {
			err = m.CheckGame(rules.Names())
		}
		if err != nil {
			return fmt.Errorf("%w: bot folder %s: %v", errUsage, arg, err)
		}
		s.sides[i] = duelist{arg: arg, dir: dir}
	}
	same := s.sides[0].dir == s.sides[1].dir
	if same {
		fmt.Fprintf(stderr, "battleship duel: warning: A and B are the same folder %s; each game still plays from two copies of it, so the duel measures luck and the seats, not one bot against another\n", c.dirs[0])
	}
	name := c.game
	if name == "" {
		_, name = s.loader.LoadBots([]string{s.sides[0].dir, s.sides[1].dir})
	}
	if name == "" {
		name = botmeta.DefaultGame
	}
	rs, err := rules.Get(name)
	if err != nil {
		return fmt.Errorf("%w: --game: %v", errUsage, err)
	}
	if lo, hi := rs.Seats(); lo > 2 || hi < 2 {
		return fmt.Errorf("%w: --game %s: a match takes %d to %d players; a duel plays two", errUsage, name, lo, hi)
	}
	s.rs = rs

	runner, release, err := newRunner(ctx, c.sandbox, log)
	if err != nil {
		return err
	}
	defer release()
	s.runner = runner
	// Built once, before any game, as -f builds; the log is shown only
	// when a build fails.
	dirs := []string{s.sides[0].dir}
	if !same {
		dirs = append(dirs, s.sides[1].dir)
	}
	var buildLog bytes.Buffer
	if err := buildBots(ctx, dirs, runner, c.sandbox, s.loader, &buildLog); err != nil {
		stderr.Write(buildLog.Bytes())
		return err
	}
	if s.cal, err = botexec.NewCalibrator(runner, s.loader.Runtimes, ""); err != nil {
		return err
	}
	defer os.RemoveAll(s.cal.Dir())
	for i := range s.sides {
		side := &s.sides[i]
		side.bot, _ = s.loader.Load(side.dir)
		if side.bot.LoadError != nil {
			return fmt.Errorf("%s cannot play: %w", side.arg, side.bot.LoadError)
		}
		// Calibrated now, on a machine not yet busy with games; every
		// game then takes the cached figure.
		if _, err := s.cal.Calibrate(ctx, side.bot.Language); err != nil {
			log.Warn("calibration failed", "language", side.bot.Language, "err", err)
		}
	}

	seed := c.seed
	if !c.seedSet {
		if seed, err = match.RandomSeed(); err != nil {
			return err
		}
	}
	if s.tmp, err = os.MkdirTemp("", "battleship-duel-"); err != nil {
		return fmt.Errorf("duel folder: %w", err)
	}
	defer os.RemoveAll(s.tmp)

	fmt.Fprintf(stderr, "Duel of %s, master seed %d, at most %d games, %d at once: A = %s (%s), B = %s (%s)\n",
		rs.Name(), seed, c.games, c.jobs, s.sides[0].bot.Name, c.dirs[0], s.sides[1].bot.Name, c.dirs[1])
	cfg := duel.Config{Games: c.games, Paired: c.paired, Jobs: c.jobs, Seed: seed,
		Test: duel.Test{Delta: c.delta, Alpha: duel.DefaultTest.Alpha, Beta: duel.DefaultTest.Beta}}
	s.started = time.Now()
	prog := newProgress(stderr, c.games, s.started)
	stopProgress := prog.start(ctx)
	res, err := duel.Run(ctx, cfg, s.play, prog.update)
	stopProgress()
	took := time.Since(s.started)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted after %s", scoreLine(res.Score))
		}
		return fmt.Errorf("%w (%s so far)", err, scoreLine(res.Score))
	}
	printDuel(stdout, c, s, res, took)
	if c.json {
		b, err := json.Marshal(newDuelJSON(rs.Name(), seed, c, res, took))
		if err != nil {
			return fmt.Errorf("duel summary: %w", err)
		}
		fmt.Fprintf(stdout, "%s\n", b)
	}
	return nil
}

// play plays one game of the duel in a folder of its own: fresh copies of
// both bot folders (a bot keeps files in its folder during a match, and
// games run at once) and the replay, all removed after the game.
func (s duelSetup) play(ctx context.Context, g duel.Game) (duel.Outcome, error) {
	dir := filepath.Join(s.tmp, fmt.Sprintf("game-%d", g.Index+1))
	defer os.RemoveAll(dir)
	seats := make([]game.Bot, 2)
	for i, side := range s.sides {
		// Under a/ and b/, with the folder's own name, so that a bot
		// named for its folder keeps its name.
		copyDir := filepath.Join(dir, []string{"a", "b"}[i], filepath.Base(side.dir))
		if err := os.CopyFS(copyDir, os.DirFS(side.dir)); err != nil {
			return 0, fmt.Errorf("copy bot folder %s: %w", side.arg, err)
		}
		bot, _ := s.loader.Load(copyDir)
		if bot.LoadError != nil {
			return 0, fmt.Errorf("copy of %s: %w", side.arg, bot.LoadError)
		}
		seat := g.SeatA
		if i == 1 {
			seat = 1 - g.SeatA
		}
		seats[seat] = bot
	}
	opts := game.Options{
		Seed: g.Seed, Size: s.size, ReplayDir: filepath.Join(dir, "replay"),
		// As the platform plays every match.
		Tournament: true,
		Runner:     s.runner, Logger: s.log,
	}
	sum, err := newMatch(s.rs, seats, opts, s.runner, s.cal, s.loader.Runtimes).Play(ctx)
	if err != nil {
		return 0, err
	}
	return duelOutcome(sum, s.rs.Traits(), g.SeatA)
}

// duelOutcome reads A's result from a match summary by the seats' keys, as
// the platform records results: the better rank wins, the same rank is a
// draw. A rule set that ranks nobody ranks its winner first.
func duelOutcome(sum *game.Summary, traits game.Traits, seatA int) (duel.Outcome, error) {
	rank := map[string]int{}
	for _, p := range sum.Players {
		r := p.Rank
		if r < 1 {
			r = 2
			if sum.Winner == nil || *sum.Winner == p.Key {
				r = 1
			}
		}
		rank[p.Key] = r
	}
	keyA, keyB := traits.Key(seatA), traits.Key(1-seatA)
	ra, okA := rank[keyA]
	rb, okB := rank[keyB]
	if !okA || !okB {
		return 0, fmt.Errorf("summary has no result for seat %s or %s", keyA, keyB)
	}
	switch {
	case ra < rb:
		return duel.WinA, nil
	case rb < ra:
		return duel.WinB, nil
	}
	return duel.Draw, nil
}

// scoreLine is the tally and A's interval in one line.
func scoreLine(s duel.Score) string {
	return fmt.Sprintf("%d games: %s", s.Games(), tally(s))
}

// tally is the wins, draws and A's win rate with its 95% interval.
func tally(s duel.Score) string {
	lo, hi := duel.Wilson95(s)
	return fmt.Sprintf("A %d, B %d, %s; A's win rate %.1f%% [%.1f%%, %.1f%%]",
		s.WinsA, s.WinsB, draws(s.Draws), 100*s.Rate(), 100*lo, 100*hi)
}

func draws(n int) string {
	if n == 1 {
		return "1 draw"
	}
	return fmt.Sprintf("%d draws", n)
}

func printDuel(w io.Writer, c duelConfig, s duelSetup, res duel.Result, took time.Duration) {
	lo, hi := duel.Wilson95(res.Score)
	fmt.Fprintf(w, "Verdict: %s\n", res.Decision.Verdict())
	fmt.Fprintf(w, "  A = %s (%s), B = %s (%s)\n", s.sides[0].bot.Name, c.dirs[0], s.sides[1].bot.Name, c.dirs[1])
	fmt.Fprintf(w, "  %d games in %s: A won %d, B won %d, %s\n", res.Score.Games(), took.Round(100*time.Millisecond),
		res.Score.WinsA, res.Score.WinsB, draws(res.Score.Draws))
	fmt.Fprintf(w, "  A's win rate %.1f%%, 95%% interval %.1f%% to %.1f%% (Wilson, draws count half)\n", 100*res.Score.Rate(), 100*lo, 100*hi)
	switch res.Decision {
	case duel.Continue:
		fmt.Fprintf(w, "  The test had not decided after --games %d; more games may decide it.\n", c.games)
	case duel.NoDifference:
		fmt.Fprintf(w, "  Neither bot is better by %.0f points of win rate (the test decided so).\n", 100*c.delta)
	default:
		fmt.Fprintf(w, "  Decided by the sequential test (better by %.0f points of win rate, α = β = 5%%).\n", 100*c.delta)
	}
}

// duelJSON is the --json summary, a stable interface: fields are only
// ever added.
type duelJSON struct {
	Games     int          `json:"games"`
	WinsA     int          `json:"winsA"`
	WinsB     int          `json:"winsB"`
	Draws     int          `json:"draws"`
	WinRateA  float64      `json:"winRateA"`
	CI95      [2]float64   `json:"ci95"`
	Verdict   string       `json:"verdict"`
	Seed      int64        `json:"seed"`
	Game      string       `json:"game"`
	Paired    bool         `json:"paired"`
	Delta     float64      `json:"delta"`
	StoppedBy string       `json:"stoppedBy"`
	Seconds   float64      `json:"seconds"`
	Results   []duelResult `json:"results"`
}

type duelResult struct {
	Seed   int64  `json:"seed"`
	SeatA  int    `json:"seatA"`
	Winner string `json:"winner"`
}

func newDuelJSON(gameName string, seed int64, c duelConfig, res duel.Result, took time.Duration) duelJSON {
	lo, hi := duel.Wilson95(res.Score)
	j := duelJSON{
		Games: res.Score.Games(), WinsA: res.Score.WinsA, WinsB: res.Score.WinsB, Draws: res.Score.Draws,
		WinRateA: res.Score.Rate(), CI95: [2]float64{lo, hi}, Verdict: res.Decision.Verdict(), Seed: seed,
		Game: gameName, Paired: c.paired, Delta: c.delta, StoppedBy: "test", Seconds: took.Seconds(),
		Results: make([]duelResult, 0, len(res.Played)),
	}
	if res.Decision == duel.Continue {
		j.StoppedBy = "games"
	}
	for _, p := range res.Played {
		j.Results = append(j.Results, duelResult{Seed: p.Seed, SeatA: p.SeatA, Winner: p.Outcome.String()})
	}
	return j
}
