// Package build turns an uploaded bot folder into one ready to play: it
// installs dependencies and compiles, per the manifest's BotType, with every
// command in the sandbox. Only the dependency step may use the network.
// What the commands print is the build log, shown to the bot's owner.
package build

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// Builder builds bot folders.
type Builder struct {
	// Runner runs the build commands: a sandbox.Bwrap on the platform.
	Runner sandbox.Runner
	// Limits bound each command; zero fields take Runner's defaults.
	Limits sandbox.Limits
	// Runtimes finds language runtimes for the final launch check.
	Runtimes *botexec.Runtimes
	// Rules says, for the game a bot plays, how its engine starts bots
	// (which "python", whether it runs run.sh).
	Rules *game.Registry
	// Env is added to the environment of the steps that download
	// dependencies: the operator's package mirrors (NPM_CONFIG_REGISTRY,
	// PIP_INDEX_URL, GOPROXY, …). MAVEN_MIRROR among them is the one
	// repository Maven downloads from (see mavenMirror).
	Env []string
	// TempDir holds the fresh folders the downloads run in; empty means
	// beside the bot's folder (on its file system, so the downloads are
	// moved into it, not copied).
	TempDir string
	// GoCache, when set, is the Go build cache that Go builds use (the
	// local command's, building a contestant's own bots on their own
	// machine, without a sandbox): the standard library is then compiled
	// once, not at every build. Empty gives each build a cache of its own
	// in the bot's folder, removed after it, so that on the platform
	// untrusted builds share nothing.
	GoCache string
	// GoSeed, when set (and GoCache is not), starts each Go build's own
	// cache with a copy of the standard library compiled in advance.
	GoSeed *GoSeed

	// inspectFetch, when set, is called with each download's fresh folder
	// once the download ended, before the folder is removed (tests).
	inspectFetch func(root string)
}

// DefaultLimits bound one build command: generous for compilers and
// package managers, small enough that a hostile build cannot hurt the host.
func DefaultLimits() sandbox.Limits {
	return sandbox.Limits{
		WallTime:      10 * time.Minute,
		CPUTime:       10 * time.Minute,
		MemoryBytes:   2 << 30,
		Processes:     512,
		FileSizeBytes: 512 << 20,
		OpenFiles:     4096,
		OutputBytes:   256 << 10,
	}
}

// New returns a Builder on runner with DefaultLimits, for the rule sets
// of rules.
func New(runner sandbox.Runner, rules *game.Registry) *Builder {
	return &Builder{Runner: runner, Limits: DefaultLimits(), Runtimes: botexec.NewRuntimes(), Rules: rules}
}

// traits are the traits of the game m plays; a manifest made by hand
// without one plays botmeta.DefaultGame, as a bot.json without one.
func (b *Builder) traits(m botmeta.Manifest) (game.Traits, error) {
	if b.Rules == nil {
		return game.Traits{}, errors.New("build: no rule sets to look the game up in")
	}
	m.Game = cmp.Or(m.Game, botmeta.DefaultGame)
	if err := m.CheckGame(b.Rules.Names()); err != nil {
		return game.Traits{}, err
	}
	rs, err := b.Rules.Get(m.Game)
	if err != nil {
		return game.Traits{}, err
	}
	return rs.Traits(), nil
}

// Result is the outcome of a build.
type Result struct {
	// OK says the bot is ready to play.
	OK bool
	// Log is every command with its output, and the reason of a failure.
	Log string
}

// step is one command of a build.
type step struct {
	args []string
	env  []string
	// optional steps may fail without failing the build.
	optional bool
	// fetch, when set, makes the step a dependency download: the only
	// kind of step with the network, run in a fresh folder (args and env
	// are then fetch.command's).
	fetch *fetch
	// prepare, when set, runs on the host before the step's command.
	prepare func(ctx context.Context) error
}

// Build builds the bot in dir (absolute, writable) described by m. The
// returned error is for the platform's own failures (the sandbox could not
// start, the context ended); a bot that does not build is a Result with OK
// false and the reason in its Log.
func (b *Builder) Build(ctx context.Context, dir string, m botmeta.Manifest) (Result, error) {
	return b.BuildLive(ctx, dir, m, nil)
}

// BuildLive is Build that also hands the log to progress as it grows: each
// command line before the command runs, its output once it ended. The
// chunks, in order, make up the Result's Log. progress may be nil.
func (b *Builder) BuildLive(ctx context.Context, dir string, m botmeta.Manifest, progress func(ctx context.Context, chunk string)) (Result, error) {
	var log strings.Builder
	sent := 0
	flush := func() {
		if progress != nil && log.Len() > sent {
			progress(ctx, log.String()[sent:])
			sent = log.Len()
		}
	}
	defer flush()
	fail := func(format string, args ...any) (Result, error) {
		fmt.Fprintf(&log, "\nBuild failed: %s\n", fmt.Sprintf(format, args...))
		flush()
		return Result{Log: log.String()}, nil
	}
	work := dir
	if m.ProjectLocation != "" {
		work = filepath.Join(dir, filepath.FromSlash(m.ProjectLocation))
		if st, err := os.Stat(work); err != nil || !st.IsDir() {
			return fail("ProjectLocation %q is not a folder of the bot.", m.ProjectLocation)
		}
	}
	traits, err := b.traits(m)
	if err != nil {
		return fail("%v", err)
	}
	steps, err := b.plan(work, m)
	if err != nil {
		return fail("%v", err)
	}
	if err := b.checkInterpreters(dir, m, traits); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(&log, "Building %s bot (BotType %s, RunFile %s)\n", m.Game, m.BotType, m.RunFile)
	for _, s := range steps {
		var res sandbox.Result
		args := s.args
		if s.fetch != nil {
			args, res, err = b.runFetch(ctx, dir, work, s.fetch, &log, flush)
		} else {
			fmt.Fprintf(&log, "\n$ %s\n", strings.Join(s.args, " "))
			flush()
			if s.prepare != nil {
				if err := s.prepare(ctx); err != nil {
					return Result{Log: log.String()}, fmt.Errorf("build: %w", err)
				}
			}
			res, err = b.Runner.Run(ctx, sandbox.Cmd{
				Args:   s.args,
				Dir:    work,
				Env:    s.env,
				Mounts: []sandbox.Mount{{Source: dir, Writable: true}},
				Limits: b.Limits,
			})
		}
		if ctx.Err() != nil {
			// What ran so far, for the caller to record with the reason.
			return Result{Log: log.String()}, fmt.Errorf("build: %w", ctx.Err())
		}
		if err != nil {
			// Programs were found before: a command that cannot start is
			// the sandbox's failure, retried later, not the bot's.
			return Result{}, fmt.Errorf("build: run %s: %w", filepath.Base(args[0]), err)
		}
		log.Write(withoutEscapes(res.Stdout))
		log.Write(withoutEscapes(res.Stderr))
		if res.Truncated {
			log.WriteString("\n(output truncated)\n")
		}
		if why := failure(res); why != "" {
			if s.optional {
				fmt.Fprintf(&log, "(ignored: %s)\n", why)
				continue
			}
			return fail("%s %s.", args[0], why)
		}
	}
	// The same check the match runner makes: the bot can be launched.
	if _, err := botexec.Command(b.Runtimes, m, dir, traits); err != nil {
		return fail("%v", err)
	}
	log.WriteString("\nBuild succeeded.\n")
	flush()
	return Result{OK: true, Log: log.String()}, nil
}

// terminalEscape matches the colour and cursor sequences tools print even
// to a pipe (Debian's Maven resets colours it never set): the log is read
// on a web page.
var terminalEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

func withoutEscapes(out []byte) []byte {
	return terminalEscape.ReplaceAll(out, nil)
}

func failure(res sandbox.Result) string {
	switch {
	case res.TimedOut:
		return fmt.Sprintf("was stopped after %s", res.Wall.Round(time.Second))
	case res.CPUExceeded:
		return "used too much CPU time"
	case res.MemoryExceeded:
		return "ran out of memory"
	case res.Signal != "":
		return "was killed by " + res.Signal
	case res.ExitCode != 0:
		return fmt.Sprintf("exited with status %d", res.ExitCode)
	}
	return ""
}
