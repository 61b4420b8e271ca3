package hitandsunk

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/command"
	"github.com/broadside/broadside/internal/game"
)

// Protocol limits.
const (
	// CallTimeout is the challenge text's one second per call; the seat's
	// language calibration is added to it.
	CallTimeout = time.Second
	// maxOutput caps what is kept of a call's stdout and stderr. No ship
	// can use more than a few dozen characters of actions per turn.
	maxOutput = 64 << 10
	// maxLogBytes caps the log a bot's owner receives for one match.
	maxLogBytes = 1 << 20
	// logStderrBytes is how much of each call's stderr goes into that log.
	logStderrBytes = 2 << 10
)

// ParseShipChoice reads the reply to the argument-less first call: only the
// first whitespace-delimited token counts (Java Scanner.next), parsed as
// Integer.parseInt would ("+3" and "03" are fine), and it must be 1 to 5.
func ParseShipChoice(stdout string) (ShipType, error) {
	fields := strings.Fields(stdout)
	if len(fields) == 0 {
		return ShipType{}, errors.New("no ship choice on stdout")
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil {
		return ShipType{}, fmt.Errorf("ship choice %q is not a number", truncate(fields[0], 40))
	}
	return ShipTypeByChoice(n)
}

// NormalizeReply turns a turn's whole stdout into the action string the
// controller executes: its whitespace-separated tokens joined by single
// spaces. Every remaining character counts, debug text included.
func NormalizeReply(stdout string) string {
	return strings.Join(strings.Fields(stdout), " ")
}

// seat is one bot in the match and how to reach it.
type seat struct {
	id     int
	bot    game.Bot
	runner game.Runner
	// noShip says why the seat has no ship (load error, failed choice).
	noShip string
	log    botLog
	// shown is the name people know the seat by (Options.Names), if any.
	shown string
}

// label names the seat in messages: the name people know it by, else the
// bot's own, else its key.
func (s *seat) label() string {
	if s.shown != "" {
		return s.shown
	}
	if s.bot.Name != "" {
		return s.bot.Name
	}
	return "seat " + s.bot.Key
}

// callResult is one finished call.
type callResult struct {
	stdout string
	// failure says why the call counts as doing nothing (timeout, crash,
	// could not start); empty for a good call.
	failure string
	wall    time.Duration
	// stderr is what the bot wrote there, for debug mode.
	stderr []byte
	// platformErr is set when the platform could not start the bot
	// (command.ErrPlatform): the match cannot go on.
	platformErr error
}

// call runs the bot once: with no argument for the ship choice (arg nil),
// else with the request as one argument. The working folder is the bot's
// own folder, which persists between its calls.
func (s *seat) call(ctx context.Context, arg *string, opts game.Options) callResult {
	args := append([]string{}, s.bot.Command...)
	if arg != nil {
		args = append(args, *arg)
	}
	args = append(args, s.bot.TrailingArgs...)
	limits := command.Limits{OutputBytes: maxOutput}
	if !opts.NoLimit {
		limits.WallTime = CallTimeout + s.bot.Calibration
	}
	cmd := command.Cmd{
		Args:   args,
		Dir:    s.bot.Dir,
		Mounts: []command.Mount{{Source: s.bot.Dir, Writable: true}},
		Limits: limits,
	}
	start := time.Now()
	res, err := s.runner.Run(ctx, cmd)
	out := callResult{stdout: string(res.Stdout), wall: res.Wall}
	if out.wall == 0 {
		out.wall = time.Since(start)
	}
	switch {
	case errors.Is(err, command.ErrPlatform):
		out.platformErr = fmt.Errorf("call %s: %w", s.label(), err)
	case err != nil:
		out.failure = fmt.Sprintf("could not start: %v", err)
	case res.TimedOut:
		out.failure = fmt.Sprintf("no answer within %s", limits.WallTime)
	case res.CPUExceeded:
		out.failure = "CPU time limit exceeded"
	case res.MemoryExceeded:
		out.failure = "memory limit exceeded"
	case res.Signal != "":
		out.failure = "crashed (" + res.Signal + ")"
	case res.ExitCode != 0:
		out.failure = fmt.Sprintf("crashed (exit code %d)", res.ExitCode)
	}
	if out.failure != "" {
		out.stdout = ""
	}
	s.log.call(arg, res, out, limits.WallTime)
	out.stderr = res.Stderr
	return out
}

// botLog is what the engine recorded of one bot's calls, for its owner.
type botLog struct {
	b       strings.Builder
	dropped bool
}

func (l *botLog) printf(format string, args ...any) {
	if l.b.Len() >= maxLogBytes {
		if !l.dropped {
			l.dropped = true
			l.b.WriteString("... log truncated\n")
		}
		return
	}
	fmt.Fprintf(&l.b, format, args...)
}

func (l *botLog) call(arg *string, res command.Result, out callResult, allowed time.Duration) {
	took := fmt.Sprintf("%s of the %s allowed, CPU time %s", out.wall.Round(time.Millisecond), allowed, res.CPU.Round(time.Millisecond))
	if allowed == 0 {
		took = fmt.Sprintf("%s, CPU time %s", out.wall.Round(time.Millisecond), res.CPU.Round(time.Millisecond))
	}
	if arg == nil {
		l.printf("ship choice call (%s)\n", took)
	} else {
		l.printf("request: %s (%s)\n", *arg, took)
	}
	if out.failure != "" {
		l.printf("  failed: %s\n", out.failure)
	} else {
		l.printf("  stdout: %q\n", truncate(string(res.Stdout), 512))
	}
	if len(res.Stderr) > 0 {
		l.printf("  stderr: %s\n", truncate(string(res.Stderr), logStderrBytes))
	}
	if res.Truncated {
		l.printf("  output beyond %d bytes was dropped\n", maxOutput)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
