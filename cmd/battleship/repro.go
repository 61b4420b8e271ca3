package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/brainjar"
	"github.com/broadside/broadside/internal/game/deepship"
	"github.com/broadside/broadside/internal/game/entelect"
	"github.com/broadside/broadside/internal/game/hitandsunk"
	"github.com/broadside/broadside/internal/match"
	"github.com/broadside/broadside/web/board"
)

const reproUsage = `Usage: battleship repro [--seat A|B] [--sandbox] [--json] [-l DIR] --bot DIR REPLAY

Plays an Entelect match again with the bot in DIR in one seat, against the
other seat's recorded moves (a ghost): each round the ghost answers with the
place.txt or command.txt its bot wrote in that round of REPLAY, and runs
nothing. REPLAY is a replay folder or a replay zip downloaded from the portal.

It says the first round in which the bot's command differs from the one
recorded for its seat, with both, then plays on to the end and prints the
new result. Where the new game outlasts the recording, the ghost does
nothing from the round its recording ran out, and the output says so.

  --bot DIR   the bot to play (its bot.json names it)
  --seat A|B  its seat; default: the seat whose recorded bot has the bot's
              NickName, else A
  --sandbox   run the bot confined by bubblewrap, as the platform does
  --json      print {"divergedAtRound", "recorded", "now", "ghostRanOutAtRound",
              "result"} as the last line of standard output
  -l DIR      the new replay's folder (default: Replays/repro-NAME)

Only Entelect replays can be played this way (see docs/battleship-command.md).
`

type reproConfig struct {
	bot, replay, seat, logDir string
	sandbox, json, help       bool
}

// reproCommand is `battleship repro`; it returns the exit status.
func reproCommand(ctx context.Context, rules *game.Registry, args []string, stdout, stderr io.Writer) int {
	c, err := parseReproArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "battleship repro: %v\n\n%s", err, reproUsage)
		return exitUsage
	}
	if c.help {
		fmt.Fprint(stdout, reproUsage)
		return exitPlayed
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := playRepro(ctx, rules, c, stdout, stderr, log); err != nil {
		fmt.Fprintf(stderr, "battleship repro: %v\n", err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		return exitFailed
	}
	return exitPlayed
}

// parseReproArgs reads the flags, before or after REPLAY.
func parseReproArgs(args []string) (reproConfig, error) {
	var c reproConfig
	fl := flag.NewFlagSet("repro", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.StringVar(&c.bot, "bot", "", "")
	fl.StringVar(&c.seat, "seat", "", "")
	fl.StringVar(&c.logDir, "l", "", "")
	fl.StringVar(&c.logDir, "log", "", "")
	fl.BoolVar(&c.sandbox, "sandbox", false, "")
	fl.BoolVar(&c.json, "json", false, "")
	var rest []string
	for {
		if err := fl.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.help = true
				return c, nil
			}
			return c, err
		}
		if fl.NArg() == 0 {
			break
		}
		rest = append(rest, fl.Arg(0))
		args = fl.Args()[1:]
	}
	switch {
	case c.bot == "":
		return c, errors.New("--bot DIR is required")
	case len(rest) != 1:
		return c, errors.New("repro takes one replay folder or zip")
	case c.seat != "" && c.seat != "A" && c.seat != "B":
		return c, fmt.Errorf("--seat %s: Entelect's seats are A and B", c.seat)
	}
	c.replay = rest[0]
	return c, nil
}

// recording is an Entelect replay as repro reads it.
type recording struct {
	fsys fs.FS
	root string // the folder of round folders in fsys
	size int    // Options.Size of the recorded map
	// names and infos are the recorded players, by seat: their names
	// are in every state.json a bot reads, so the ghost keeps them.
	names [2]string
	infos [2]game.BotInfo
	// nicks are the recorded NickNames (else names), to find the seat
	// of a bot by its bot.json.
	nicks [2]string
}

// openRecording opens REPLAY and checks it is an Entelect replay. Every
// problem with it is the caller's mistake (errUsage).
func openRecording(p string) (*recording, io.Closer, error) {
	fsys, closer, err := openReplay(p)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	fail := func(err error) (*recording, io.Closer, error) {
		closer.Close()
		return nil, nil, fmt.Errorf("%w: %s: %v", errUsage, p, err)
	}
	rp, err := board.Open(fsys)
	if err != nil {
		return fail(fmt.Errorf("not a replay: %w", err))
	}
	if rp.Game() != entelect.Name {
		return fail(fmt.Errorf("a %s replay; repro plays Entelect replays only: %s", rp.Game(), otherGames[rp.Game()]))
	}
	// The round folders are at the root, or in one folder (a zipped
	// folder), where board.Open found them.
	r := &recording{fsys: fsys, root: "."}
	if _, err := fs.Stat(fsys, "Phase 1 - Round 0"); err != nil {
		entries, _ := fs.ReadDir(fsys, ".")
		for _, e := range entries {
			if _, err := fs.Stat(fsys, path.Join(e.Name(), "Phase 1 - Round 0")); err == nil && e.IsDir() {
				r.root = e.Name()
				break
			}
		}
	}
	first := path.Join(r.root, "Phase 1 - Round 0")
	var st struct {
		MapDimension           int
		Player1Map, Player2Map *struct{ Owner struct{ Name string } }
	}
	if err := readJSON(fsys, path.Join(first, "state.json"), &st); err != nil {
		return fail(err)
	}
	if st.Player1Map == nil || st.Player2Map == nil {
		return fail(errors.New("the state.json of \"Phase 1 - Round 0\" names no players"))
	}
	sizes := map[int]int{7: 1, 10: 2, 14: 3}
	if r.size = sizes[st.MapDimension]; r.size == 0 {
		return fail(fmt.Errorf("map of %d×%d: Entelect maps are 7, 10 or 14 wide", st.MapDimension, st.MapDimension))
	}
	r.names = [2]string{st.Player1Map.Owner.Name, st.Player2Map.Owner.Name}
	// roundInfo.json adds the manifests' author fields, which the new
	// roundInfo.json repeats; a replay without it still plays.
	var info struct{ Players []game.BotInfo }
	if err := readJSON(fsys, path.Join(first, "roundInfo.json"), &info); err == nil && len(info.Players) == 2 {
		r.infos = [2]game.BotInfo(info.Players)
	}
	for i := range r.infos {
		r.nicks[i] = cmp.Or(r.infos[i].NickName, r.names[i])
	}
	return r, closer, nil
}

// otherGames says why a ghost cannot stand in for a seat of the other
// rule sets.
var otherGames = map[string]string{
	hitandsunk.Name: "its ships move on one shared grid among up to 30 players, in an order drawn each round; " +
		"a recorded move or shot was chosen for where the other ships were, and once one bot plays differently they are elsewhere",
	deepship.Name: "its bots are long-lived processes that talk with the engine over three games; " +
		"a ghost there would have to hold that conversation, not leave a file in a round folder",
	brainjar.Name: "its bots are long-lived processes, and a hit gives the shooter another shot, " +
		"so who fires when depends on both bots; a recorded turn no longer falls where it was played",
}

func readJSON(fsys fs.FS, name string, v any) error {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}

// reproReport is the --json line of `battleship repro`.
type reproReport struct {
	DivergedAtRound *int   `json:"divergedAtRound"`
	Recorded        string `json:"recorded"`
	Now             string `json:"now"`
	// GhostRanOutAtRound is the first round the recording had no move of
	// the ghost for (the new game lasted longer); null when it never ran out.
	GhostRanOutAtRound *int          `json:"ghostRanOutAtRound"`
	Result             *game.Summary `json:"result"`
}

func playRepro(ctx context.Context, rules *game.Registry, c reproConfig, stdout, stderr io.Writer, log *slog.Logger) error {
	rec, closer, err := openRecording(c.replay)
	if err != nil {
		return err
	}
	defer closer.Close()
	loader := match.NewLoader(rules)
	bot, manifest := loader.Load(c.bot)
	if bot.LoadError != nil {
		return fmt.Errorf("%w: %v", errUsage, bot.LoadError)
	}
	if manifest.Game != "" && manifest.Game != entelect.Name {
		return fmt.Errorf("%w: %s is a %s bot; repro plays Entelect replays only", errUsage, c.bot, manifest.Game)
	}
	seat := 0
	switch {
	case c.seat == "B":
		seat = 1
	case c.seat == "" && manifest.NickName != "" && rec.nicks[0] != manifest.NickName && rec.nicks[1] == manifest.NickName:
		seat = 1
	}
	other := 1 - seat

	runner, release, err := newRunner(ctx, c.sandbox, log)
	if err != nil {
		return err
	}
	defer release()
	cal, err := botexec.NewCalibrator(runner, loader.Runtimes, "")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cal.Dir())
	ghostDir, err := os.MkdirTemp("", "battleship-ghost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(ghostDir)
	ghost, err := newGhost(rec.fsys, rec.root, entelect.Key(other))
	if err != nil {
		return err
	}
	seats := make([]game.Bot, 2)
	seats[seat] = bot
	seats[other] = game.Bot{
		Name: rec.names[other], Meta: rec.infos[other], Dir: ghostDir, Command: []string{"ghost"}, Runner: ghost,
		// A ghost starts nothing, so it has no start-up cost to measure;
		// any allowance at all skips the calibration.
		Calibration: time.Nanosecond,
	}
	base := strings.TrimSuffix(filepath.Base(filepath.Clean(c.replay)), ".zip")
	replayDir, err := reproFolder(c.logDir, base)
	if err != nil {
		return err
	}
	if abs, err := filepath.Abs(c.replay); err == nil && abs == replayDir {
		return fmt.Errorf("%w: -l %s is the replay to play again; the new replay needs a folder of its own", errUsage, c.logDir)
	}
	rs, err := rules.Get(entelect.Name)
	if err != nil {
		return err
	}
	// Entelect draws nothing from the seed (the bots place the ships, and
	// the rules order each round), and its replay does not record one: the new
	// match plays the same with any, and its summary shows 0.
	opts := game.Options{Size: rec.size, ReplayDir: replayDir, Runner: runner, Logger: log}
	sum, err := newMatch(rs, seats, opts, runner, cal, loader.Runtimes).Play(ctx)
	if err != nil {
		return err
	}

	newFS, err := os.OpenRoot(replayDir)
	if err != nil {
		return fmt.Errorf("read new replay: %w", err)
	}
	defer newFS.Close()
	rep := reproReport{Result: sum}
	key := entelect.Key(seat)
	if d, ok := firstDivergence(rec.fsys, rec.root, newFS.FS(), ".", key); ok {
		rep.DivergedAtRound, rep.Recorded, rep.Now = &d.round, d.recorded, d.now
	}
	if n := ghost.ranOutAt(); n >= 0 {
		rep.GhostRanOutAtRound = &n
	}

	if c.json {
		fmt.Fprintf(stderr, "Replay: %s\n", replayDir)
		b, err := json.Marshal(rep)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return nil
	}
	fmt.Fprintf(stdout, "%s (%s) in seat %s against the recorded moves of %s in seat %s.\n",
		bot.Name, c.bot, key, rec.names[other], entelect.Key(other))
	if rep.DivergedAtRound == nil {
		fmt.Fprintln(stdout, "The bot's commands are the recorded ones in every round.")
	} else {
		fmt.Fprintf(stdout, "Round %d is the first in which the bot's command differs from the recorded one:\n", *rep.DivergedAtRound)
		fmt.Fprintf(stdout, "  recorded: %s\n  now:      %s\n", shownCommand(rep.Recorded), shownCommand(rep.Now))
	}
	if rep.GhostRanOutAtRound != nil {
		fmt.Fprintf(stdout, "The recording ends before this game: the ghost did nothing from round %d on.\n", *rep.GhostRanOutAtRound)
	}
	printSummary(stdout, sum, replayDir)
	return nil
}

// shownCommand puts a command on one line (place.txt has five).
func shownCommand(s string) string {
	if s == "" {
		return "(none)"
	}
	return strings.ReplaceAll(s, "\n", " | ")
}

// reproFolder is -l made absolute, else Replays/repro-NAME in the current
// folder, with a suffix when that is taken.
func reproFolder(logDir, name string) (string, error) {
	if logDir != "" {
		return match.ReplayFolder(logDir, 0)
	}
	base, err := filepath.Abs(filepath.Join("Replays", "repro-"+name))
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

// reproRound matches an Entelect round folder ("Phase 2 - Round 14").
var reproRound = regexp.MustCompile(`^Phase (\d+) - Round (\d+)$`)

// roundNumber is the round of a round folder's name.
func roundNumber(name string) (int, bool) {
	m := reproRound.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[2])
	return n, err == nil
}

// divergence is the first round in which a seat's commands differ.
type divergence struct {
	round         int
	recorded, now string
}

// firstDivergence compares seat key's command in every round the
// recording has a turn of the seat for, in play order; a round the new
// game did not reach counts as no command there. Past the recording there
// is nothing to compare with: the ghost has run out.
func firstDivergence(recFS fs.FS, recRoot string, newFS fs.FS, newRoot, key string) (divergence, bool) {
	type round struct {
		name         string
		phase, round int
	}
	var rounds []round
	entries, _ := fs.ReadDir(recFS, recRoot)
	for _, e := range entries {
		m := reproRound.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		if fi, err := fs.Stat(recFS, path.Join(recRoot, e.Name(), key)); err != nil || !fi.IsDir() {
			continue
		}
		p, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		rounds = append(rounds, round{e.Name(), p, n})
	}
	slices.SortFunc(rounds, func(a, b round) int { return cmp.Or(cmp.Compare(a.phase, b.phase), cmp.Compare(a.round, b.round)) })
	for _, r := range rounds {
		was := seatCommand(recFS, path.Join(recRoot, r.name, key))
		now := seatCommand(newFS, path.Join(newRoot, r.name, key))
		if !was.same(now) {
			return divergence{round: r.round, recorded: was.text, now: now.text}, true
		}
	}
	return divergence{}, false
}

// turnCommand is what a seat wrote in a round.
type turnCommand struct {
	text   string // trimmed lines, "" for none
	parsed *entelect.Command
}

// seatCommand reads a seat's round folder as the engine does: place.txt
// first, else command.txt.
func seatCommand(fsys fs.FS, dir string) turnCommand {
	for _, name := range []string{"place.txt", "command.txt"} {
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			continue
		}
		var lines []string
		for l := range strings.Lines(string(data)) {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		c := turnCommand{text: strings.Join(lines, "\n")}
		parse := entelect.ParseCommand
		if name == "place.txt" {
			parse = entelect.ParsePlace
		}
		if cmd, err := parse(data); err == nil {
			c.parsed = &cmd
		}
		return c
	}
	return turnCommand{}
}

// same compares the commands as the engine takes them where both parse
// ("1,3,4" and "1, 3, 4" are one shot), else as text.
func (c turnCommand) same(o turnCommand) bool {
	if c.parsed != nil && o.parsed != nil {
		a, b := *c.parsed, *o.parsed
		a.PlaceText, b.PlaceText = "", ""
		return reflect.DeepEqual(a, b)
	}
	return c.text == o.text
}
