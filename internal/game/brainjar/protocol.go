package brainjar

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/command"
	"github.com/broadside/broadside/internal/game"
)

// Published limits of the original competition.
const (
	// MoveTimeout is the wall time of one request, process start included.
	MoveTimeout = 2 * time.Second
	// MemoryBytes bounds one request's process tree.
	MemoryBytes = 256 << 20
	// outputBytes is how much of a reply (and of stderr) is kept; a JSON
	// reply is a few hundred bytes.
	outputBytes = 64 << 10
	// logBytes caps a bot's log of one match.
	logBytes = 256 << 10
	// noLimitWall stands for "no limit" (Options.NoLimit): a runner's
	// defaults would apply to a zero limit.
	noLimitWall = time.Hour
)

// player is one seat and what the engine keeps of it during a match.
type player struct {
	bot    game.Bot
	key    string
	name   string
	runner game.Runner
	log    *game.BotLog
	// runs counts requests, for the log.
	runs int
	// consoleIn reads a console player's lines.
	consoleIn *bufio.Reader
}

// errBot is a request that failed because of the bot; its message is the
// reason the bot loses.
type errBot struct{ reason string }

func (e *errBot) Error() string { return e.reason }

func botFailed(format string, args ...any) error {
	return &errBot{reason: fmt.Sprintf(format, args...)}
}

// request runs the bot once with payload as its argument and returns its
// stdout. An *errBot error means the bot failed (crash, timeout, could not
// start); any other error means the match cannot go on (ctx ended).
func (p *player) request(ctx context.Context, payload []byte, opts game.Options) ([]byte, error) {
	p.runs++
	p.log.Printf("request %d: %s\n", p.runs, payload)
	if p.bot.LoadError != nil && !hasRunSh(p.bot.Dir) {
		return nil, botFailed("bot could not be loaded: %v", p.bot.LoadError)
	}
	if p.bot.Console != nil {
		return p.askConsole(payload)
	}
	args, err := commandFor(p.bot, payload)
	if err != nil {
		return nil, botFailed("%v", err)
	}
	// Wall and CPU time are always set, so a runner's defaults never cut
	// a request short; CPU time allows two busy cores for the wall time.
	wall := MoveTimeout + p.bot.Calibration
	if opts.NoLimit {
		wall = noLimitWall
	}
	limits := command.Limits{MemoryBytes: MemoryBytes, OutputBytes: outputBytes, WallTime: wall, CPUTime: 2 * wall}
	cmd := command.Cmd{
		Args:   args,
		Dir:    p.bot.Dir,
		Mounts: []command.Mount{{Source: p.bot.Dir, Writable: true}},
		Limits: limits,
	}
	res, err := p.runner.Run(ctx, cmd)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("request %d of %s: %w", p.runs, p.key, ctx.Err())
	}
	if errors.Is(err, command.ErrPlatform) {
		return nil, fmt.Errorf("request %d of %s: %w", p.runs, p.key, err)
	}
	if err != nil {
		p.log.Printf("could not start: %v\n", err)
		return nil, botFailed("could not start: %v", err)
	}
	p.log.Printf("reply after %s of the %s allowed (CPU time %s): %s\n", res.Wall.Round(time.Millisecond), limits.WallTime,
		res.CPU.Round(time.Millisecond), bytes.TrimSpace(res.Stdout))
	if len(bytes.TrimSpace(res.Stderr)) > 0 {
		p.log.Printf("stderr:\n%s\n", res.Stderr)
	}
	if err := opts.DebugStderr(ctx, res.Stderr, "Bot %s wrote to stderr:\n%s\n", p.key, res.Stderr); err != nil {
		return nil, fmt.Errorf("request %d of %s: %w", p.runs, p.key, err)
	}
	switch {
	case res.TimedOut:
		return nil, botFailed("timed out after %s", limits.WallTime.Round(time.Millisecond))
	case res.MemoryExceeded:
		return nil, botFailed("exceeded the memory limit of %d MiB", MemoryBytes>>20)
	case res.CPUExceeded:
		return nil, botFailed("exceeded its CPU time of %s", limits.CPUTime)
	case res.Signal != "":
		return nil, botFailed("crashed (%s)", res.Signal)
	case res.ExitCode != 0:
		return nil, botFailed("crashed (exit code %d)", res.ExitCode)
	case res.Truncated:
		return nil, botFailed("printed more than %d KiB", outputBytes>>10)
	}
	return res.Stdout, nil
}

// askConsole shows the request to a human and reads one line back. A move
// may be typed as just "XY".
func (p *player) askConsole(payload []byte) ([]byte, error) {
	c := p.bot.Console
	if p.consoleIn == nil {
		p.consoleIn = bufio.NewReader(c.In)
	}
	fmt.Fprintf(c.Out, "%s\n%s> ", p.name, payload)
	line, err := p.consoleIn.ReadString('\n')
	line = strings.TrimSpace(line)
	if err != nil && line == "" {
		return nil, botFailed("console closed: %v", err)
	}
	if len(line) == 2 {
		line = fmt.Sprintf(`{"move":%q}`, line)
	}
	p.log.Printf("console: %s\n", line)
	return []byte(line), nil
}

// commandFor is how the original ran a bot: `./run.sh <json>` from the bot's
// folder. The script is run through the interpreter of its #! line (or sh),
// so it works without its executable bit, as `chmod +x ./run.sh && ./run.sh`
// did; the JSON stays one argument, with no shell parsing it. A bot without
// run.sh runs its manifest's command with the JSON appended.
func commandFor(b game.Bot, payload []byte) ([]string, error) {
	script := filepath.Join(b.Dir, "run.sh")
	data, err := os.ReadFile(script)
	switch {
	case err == nil:
		interp := []string{"/bin/sh"}
		if line, ok := bytes.CutPrefix(data, []byte("#!")); ok {
			first, _, _ := bytes.Cut(line, []byte("\n"))
			if f := strings.Fields(string(first)); len(f) > 0 {
				interp = f
			}
		}
		return append(append(interp, "./run.sh", string(payload)), b.TrailingArgs...), nil
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("read run.sh: %w", err)
	case len(b.Command) == 0:
		return nil, errors.New("no run.sh and no command in bot.json")
	}
	args := append([]string{}, b.Command...)
	return append(append(args, string(payload)), b.TrailingArgs...), nil
}

// hasRunSh reports whether dir has a run.sh. The engine runs run.sh itself
// (through its #! interpreter), so a problem loading the manifest's launch
// command, such as a run.sh without its executable bit, does not stop it.
func hasRunSh(dir string) bool {
	if dir == "" {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, "run.sh"))
	return err == nil && st.Mode().IsRegular()
}
