package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// config is the parsed command line.
type config struct {
	bots       []string
	consoles   int
	clog       bool
	pretty     bool
	logDir     string
	size       int
	noLimit    bool
	debug      bool
	tournament bool
	help       bool
	seed       int64
	seedSet    bool
	json       bool
	game       string
	sandbox    bool
	rebuild    bool
}

const usage = `Usage: battleship [options]
       battleship view [--addr HOST:PORT] REPLAY
       battleship repro [--seat A|B] [--sandbox] [--json] --bot DIR REPLAY
       battleship login --portal URL | logout
       battleship submit [--name NAME] [--game GAME] [--no-wait] DIR
       battleship matches [--bot NAME|ID] [--result R] [--kind K] [--since DATE] [--json]
       battleship download [--out DIR] MATCH_ID ... | --bot NAME|ID [--last N]

Plays one match between bots on this machine, as the original engine did.
"battleship view" serves the replay viewer for a replay folder or zip.
"battleship repro" plays an Entelect replay again with a bot against the
other seat's recorded moves, and says where the bot's commands differ.
login, submit, matches and download talk to a portal with an API token
("battleship COMMAND --help" for each).

Options:
  -b, --bot DIR [DIR ...]   bot folders, each with a bot.json (or entry.zon, run.sh)
  -c, --console N           number of human players at this terminal, seated before the bots
      --clog                also print the engine log to the console
      --pretty              draw both maps every round
  -l, --log DIR             replay folder (default Replays/{seed} in the current folder)
  -s, --size 1|2|3          map size: 1 = 7x7, 2 = 10x10 (default), 3 = 14x14
      --nolimit             no time limits
      --debug               halt when a bot writes to stderr
      --tournamentMode      hide each player's files from the other until the match ends
      --seed N              seed of the match (default: random, printed)
      --json                print the match summary as one JSON object on the last line
      --game NAME           rule set: entelect, brainjar, deepship, hitandsunk
                            (default: the one the bots' manifests name, else entelect)
  -f, --forceRebuild        build each bot per its bot.json before the match (in the sandbox
                            with --sandbox), printing the build log
      --sandbox             run the bots confined by bubblewrap (refused where it cannot be enforced)
  -h, --help                show this help

The exit status is 0 whenever the match ran to its end, whatever the bots did;
1 when it could not be played; 2 for a bad command line.
`

// errUsage marks command-line mistakes.
var errUsage = errors.New("bad command line")

// parseArgs reads the original engine's flags, where -b takes every
// following word up to the next option, plus the platform's own.
func parseArgs(args []string) (config, error) {
	var c config
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		if !strings.HasPrefix(name, "-") || name == "-" {
			return c, fmt.Errorf("%w: unexpected argument %q (bot folders follow -b)", errUsage, args[i])
		}
		// next returns the option's value: after "=", else the next word.
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
		noValue := func() error {
			if hasValue {
				return fmt.Errorf("%w: %s takes no value", errUsage, name)
			}
			return nil
		}
		var err error
		switch name {
		case "-b", "--bot":
			if hasValue {
				c.bots = append(c.bots, value)
			}
			for i+1 < len(args) && (!strings.HasPrefix(args[i+1], "-") || args[i+1] == "-") {
				i++
				c.bots = append(c.bots, args[i])
			}
			if !hasValue && len(c.bots) == 0 {
				err = fmt.Errorf("%w: %s needs at least one bot folder", errUsage, name)
			}
		case "-c", "--console":
			c.consoles, err = intValue(name, next)
			if err == nil && c.consoles < 0 {
				err = fmt.Errorf("%w: %s must not be negative", errUsage, name)
			}
		case "-l", "--log":
			c.logDir, err = next()
		case "-s", "--size":
			c.size, err = intValue(name, next)
		case "--seed":
			var v string
			if v, err = next(); err == nil {
				c.seed, err = strconv.ParseInt(v, 10, 64)
				if err != nil {
					err = fmt.Errorf("%w: --seed wants an integer, not %q", errUsage, v)
				}
				c.seedSet = true
			}
		case "--game":
			c.game, err = next()
			c.game = strings.ToLower(c.game)
		case "--clog":
			c.clog, err = true, noValue()
		case "--pretty":
			c.pretty, err = true, noValue()
		case "--nolimit":
			c.noLimit, err = true, noValue()
		case "--debug":
			c.debug, err = true, noValue()
		case "--tournamentMode", "--tournamentmode":
			c.tournament, err = true, noValue()
		case "--json":
			c.json, err = true, noValue()
		case "--sandbox":
			c.sandbox, err = true, noValue()
		case "-h", "--help":
			c.help, err = true, noValue()
		case "-f", "--forceRebuild", "--forcerebuild":
			c.rebuild, err = true, noValue()
		default:
			err = fmt.Errorf("%w: unknown option %s", errUsage, name)
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

func intValue(name string, next func() (string, error)) (int, error) {
	v, err := next()
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: %s wants an integer, not %q", errUsage, name, v)
	}
	return n, nil
}
