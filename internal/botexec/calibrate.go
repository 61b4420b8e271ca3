package botexec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// calibrationRuns is how many times a trivial bot is run; the median counts.
const calibrationRuns = 3

// Calibrator measures, once per language and process, the start-up cost of
// a trivial bot: the time a bot of that language spends before its first
// line of its own code runs. The engine adds it to the bot's time budget
// (spec §14.5), so a Java bot is not penalised for the JVM.
type Calibrator struct {
	runner sandbox.Runner
	rt     *Runtimes
	dir    string

	mu    sync.Mutex
	cache map[string]time.Duration
}

// NewCalibrator returns a calibrator that runs trivial bots with runner
// (the same kind of runner the bots get), writing them under dir (created
// if missing; a private temporary folder when empty).
func NewCalibrator(runner sandbox.Runner, rt *Runtimes, dir string) (*Calibrator, error) {
	var err error
	if dir == "" {
		dir, err = os.MkdirTemp("", "broadside-calibration-")
	} else {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return nil, fmt.Errorf("calibration folder: %w", err)
	}
	return &Calibrator{runner: runner, rt: rt, dir: dir, cache: map[string]time.Duration{}}, nil
}

// Dir is the folder the trivial bots are written to.
func (c *Calibrator) Dir() string { return c.dir }

// Calibrate returns the start-up cost of language (a BotType name, as in
// Launch.Language): the median CPU time of running its trivial bot. Native
// programs cost about nothing but are measured all the same. A language
// whose runtime is missing is an error.
func (c *Calibrator) Calibrate(ctx context.Context, language string) (time.Duration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.cache[language]; ok {
		return d, nil
	}
	cmd, err := c.trivialBot(ctx, language)
	if err != nil {
		return 0, fmt.Errorf("calibrate %s: %w", language, err)
	}
	var times []time.Duration
	for range calibrationRuns {
		res, err := c.runner.Run(ctx, cmd)
		if err != nil {
			return 0, fmt.Errorf("calibrate %s: %w", language, err)
		}
		if res.ExitCode != 0 || res.TimedOut {
			return 0, fmt.Errorf("calibrate %s: trivial bot failed (exit %d): %s", language, res.ExitCode, res.Stderr)
		}
		times = append(times, res.CPU)
	}
	slices.Sort(times)
	d := times[len(times)/2]
	c.cache[language] = d
	return d, nil
}

// trivialBot writes the trivial bot of language and returns its command,
// launched the way a real bot of that language is.
func (c *Calibrator) trivialBot(ctx context.Context, language string) (sandbox.Cmd, error) {
	t, err := botmeta.ParseBotType(language)
	if err != nil {
		return sandbox.Cmd{}, err
	}
	dir := filepath.Join(c.dir, t.String())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sandbox.Cmd{}, err
	}
	m := botmeta.Manifest{BotType: t}
	var source, body string
	switch t {
	case botmeta.Python3, botmeta.Python2:
		source, body = "bot.py", "import sys, json, os\n"
	case botmeta.JavaScript:
		source, body = "bot.js", "const fs = require('fs');\n"
	case botmeta.Julia:
		source, body = "bot.jl", "x = 1\n"
	case botmeta.Java, botmeta.Scala:
		if source, err = c.trivialJar(ctx, dir); err != nil {
			return sandbox.Cmd{}, err
		}
	case botmeta.CSharp, botmeta.FSharp:
		if source, err = c.trivialExe(ctx, dir); err != nil {
			if !errors.Is(err, errNoCompiler) {
				return sandbox.Cmd{}, err
			}
			// Without a compiler at hand the runtime's own start stands in.
			p, err := dotnetCommand(c.rt, m)
			if err != nil {
				return sandbox.Cmd{}, err
			}
			return c.cmd(dir, append(p, "--version")), nil
		}
	default: // native programs
		return c.cmd(dir, []string{"/bin/true"}), nil
	}
	if body != "" {
		if err := os.WriteFile(filepath.Join(dir, source), []byte(body), 0o644); err != nil {
			return sandbox.Cmd{}, err
		}
	}
	m.RunFile = source
	// The trivial program is no run.sh: no rule set's traits apply.
	l, err := Command(c.rt, m, dir, game.Traits{})
	if err != nil {
		return sandbox.Cmd{}, err
	}
	return c.cmd(dir, append(l.Command, "A", dir)), nil
}

func (c *Calibrator) cmd(dir string, args []string) sandbox.Cmd {
	return sandbox.Cmd{
		Args:   args,
		Dir:    dir,
		Mounts: []sandbox.Mount{{Source: dir}},
		Limits: sandbox.Limits{WallTime: 30 * time.Second, OutputBytes: 64 << 10},
	}
}

// errNoCompiler says a trivial bot cannot be compiled here.
var errNoCompiler = errors.New("no compiler")

// trivialExe compiles an empty C# program with Mono's compiler, once: the
// start of the runtime and the loading of an assembly are what a .NET bot
// pays before its own code runs.
func (c *Calibrator) trivialExe(ctx context.Context, dir string) (string, error) {
	const exe = "bot.exe"
	if _, err := os.Stat(filepath.Join(dir, exe)); err == nil {
		return exe, nil
	}
	mcs, err := c.rt.Find("CSharp", "mcs", "csc")
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNoCompiler, err)
	}
	src := "public static class Bot { public static void Main(string[] a) { } }\n"
	if err := os.WriteFile(filepath.Join(dir, "Bot.cs"), []byte(src), 0o644); err != nil {
		return "", err
	}
	return exe, c.compile(ctx, dir, []string{mcs, "-out:" + exe, "Bot.cs"})
}

// trivialJar compiles an empty Java program into a jar, once.
func (c *Calibrator) trivialJar(ctx context.Context, dir string) (string, error) {
	const jar = "bot.jar"
	if _, err := os.Stat(filepath.Join(dir, jar)); err == nil {
		return jar, nil
	}
	javac, err := c.rt.Find("Java", "javac")
	if err != nil {
		return "", err
	}
	jarTool, err := c.rt.Find("Java", "jar")
	if err != nil {
		return "", err
	}
	src := "public class Bot { public static void main(String[] a) { } }\n"
	if err := os.WriteFile(filepath.Join(dir, "Bot.java"), []byte(src), 0o644); err != nil {
		return "", err
	}
	for _, args := range [][]string{{javac, "Bot.java"}, {jarTool, "cfe", jar, "Bot", "Bot.class"}} {
		if err := c.compile(ctx, dir, args); err != nil {
			return "", err
		}
	}
	return jar, nil
}

// compile runs one step of building a trivial bot, confined as bots are.
func (c *Calibrator) compile(ctx context.Context, dir string, args []string) error {
	res, err := c.runner.Run(ctx, sandbox.Cmd{Args: args, Dir: dir, Mounts: []sandbox.Mount{{Source: dir, Writable: true}},
		Limits: sandbox.Limits{WallTime: 2 * time.Minute, OutputBytes: 64 << 10}})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("%s failed (exit %d): %s%s", filepath.Base(args[0]), res.ExitCode, res.Stdout, res.Stderr)
	}
	return nil
}
