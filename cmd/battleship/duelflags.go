package main

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/broadside/broadside/internal/duel"
)

const duelUsage = `Usage: battleship duel [options] DIR_A DIR_B

Plays many games between the bots in DIR_A and DIR_B, several at once, and
says which is better: "A better", "B better" or "undecided". It stops as soon
as a sequential test (SPRT) decides, else after --games games. Both bots are
built once first, as -f builds them; every game plays from fresh copies of
their folders.

Options:
      --game NAME    rule set: entelect, brainjar, deepship, hitandsunk
                     (default: the one the bots' manifests name, else entelect)
      --games N      play at most N games (default 200; even with --paired)
      --paired       play each seed twice, the seats swapped
      --sandbox      run the bots confined by bubblewrap
  -s, --size N       map size, in the rule set's terms (Entelect: 1, 2, 3)
      --jobs J       games at once (default: the number of cores)
      --seed S       master seed every game's seed is drawn from (default: random, printed)
      --delta D      smallest win-rate lead over 50% that counts as better (default 0.1)
      --json         also print the result as one JSON object on the last line
  -h, --help         show this help

The exit status is 0 when the duel ran (whatever its verdict), 1 when it could
not (a bot does not build, a game could not be played, interrupted), 2 for a
bad command line.
`

// duelConfig is the parsed duel command line.
type duelConfig struct {
	dirs    []string
	game    string
	games   int
	paired  bool
	sandbox bool
	size    int
	jobs    int
	seed    int64
	seedSet bool
	delta   float64
	json    bool
	help    bool
}

// parseDuelArgs reads the duel's options, before or after the two folders.
func parseDuelArgs(args []string) (duelConfig, error) {
	c := duelConfig{games: 200, jobs: runtime.NumCPU(), delta: duel.DefaultTest.Delta}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			c.dirs = append(c.dirs, arg)
			continue
		}
		if arg == "--" {
			c.dirs = append(c.dirs, args[i+1:]...)
			break
		}
		name, value, hasValue := strings.Cut(arg, "=")
		next := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%w: %s needs a value", errUsage, name)
			}
			i++
			return args[i], nil
		}
		flag := func(v *bool) error {
			if hasValue {
				return fmt.Errorf("%w: %s takes no value", errUsage, name)
			}
			*v = true
			return nil
		}
		var err error
		switch name {
		case "--game":
			c.game, err = next()
			c.game = strings.ToLower(c.game)
		case "--games":
			c.games, err = intValue(name, next)
			if err == nil && c.games < 1 {
				err = fmt.Errorf("%w: --games must be at least 1", errUsage)
			}
		case "--jobs":
			c.jobs, err = intValue(name, next)
			if err == nil && c.jobs < 1 {
				err = fmt.Errorf("%w: --jobs must be at least 1", errUsage)
			}
		case "-s", "--size":
			c.size, err = intValue(name, next)
		case "--seed":
			var v string
			if v, err = next(); err == nil {
				if c.seed, err = strconv.ParseInt(v, 10, 64); err != nil {
					err = fmt.Errorf("%w: --seed wants an integer, not %q", errUsage, v)
				}
				c.seedSet = true
			}
		case "--delta":
			var v string
			if v, err = next(); err == nil {
				c.delta, err = strconv.ParseFloat(v, 64)
				if err != nil || !(c.delta > 0 && c.delta < 0.5) {
					err = fmt.Errorf("%w: --delta wants a number above 0 and below 0.5, not %q", errUsage, v)
				}
			}
		case "--paired":
			err = flag(&c.paired)
		case "--sandbox":
			err = flag(&c.sandbox)
		case "--json":
			err = flag(&c.json)
		case "-h", "--help":
			err = flag(&c.help)
		default:
			err = fmt.Errorf("%w: unknown option %s", errUsage, name)
		}
		if err != nil {
			return c, err
		}
	}
	if c.help {
		return c, nil
	}
	if len(c.dirs) != 2 {
		return c, fmt.Errorf("%w: a duel takes two bot folders, DIR_A and DIR_B, not %d", errUsage, len(c.dirs))
	}
	if c.paired && c.games%2 != 0 {
		return c, fmt.Errorf("%w: --games must be even with --paired (each seed is played twice), not %d", errUsage, c.games)
	}
	return c, nil
}
