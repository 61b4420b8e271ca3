package match

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"sync"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// SeatRunner gives one bot process seat its own runner for the match (the
// platform: a sandbox session that sees only that bot's folders). The
// returned closer, if any, is called when the match ends.
type SeatRunner func(ctx context.Context, seat int, bot game.Bot, opts game.Options) (sandbox.Runner, io.Closer, error)

// Match is one match to play.
type Match struct {
	RuleSet game.RuleSet
	// Bots are the seats in order (console players first, as the original
	// registered them), usually from Loader.Load.
	Bots    []game.Bot
	Options game.Options
	// Calibrator, when set, measures each bot's language start-up cost and
	// puts it in the seat's Calibration (skipped with Options.NoLimit).
	Calibrator *botexec.Calibrator
	// SeatRunner, when set, gives each bot process seat its own runner;
	// otherwise seats use Options.Runner.
	SeatRunner SeatRunner
	// Runtimes finds the interpreters put first on every bot's PATH (see
	// botexec.Programs); nil means botexec.NewRuntimes().
	Runtimes *botexec.Runtimes
}

// ErrSeats is wrapped when the number of seats does not fit the rule set.
var ErrSeats = errors.New("wrong number of players")

// Play prepares the seats and plays the match to its end. An error means
// the match could not be played (wrong number of seats, no runner, the
// replay folder not writable, the rule set failing); whatever a bot does
// is part of the summary.
func (m Match) Play(ctx context.Context) (*game.Summary, error) {
	if err := m.checkSeats(); err != nil {
		return nil, err
	}
	log := m.Options.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
		m.Options.Logger = log
	}
	bots := append([]game.Bot(nil), m.Bots...)
	progs, err := m.programs()
	if err != nil {
		return nil, err
	}
	// The seats' sandboxes start at once: each is a process to start and
	// answer, and the match waits for the slowest rather than their sum.
	closers := make([]io.Closer, len(bots))
	errs := make([]error, len(bots))
	var wg sync.WaitGroup
	for i := range bots {
		wg.Go(func() { closers[i], errs[i] = m.prepareSeat(ctx, i, &bots[i], progs, log) })
	}
	wg.Wait()
	defer func() {
		for _, c := range closers {
			if c == nil {
				continue
			}
			if cerr := c.Close(); cerr != nil {
				log.Warn("close seat runner", "err", cerr)
			}
		}
	}()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return m.playRules(ctx, bots, log)
}

// checkSeats fails when the number of seats does not fit the rule set.
func (m Match) checkSeats() error {
	if m.RuleSet == nil {
		return errors.New("match: no rule set")
	}
	lo, hi := m.RuleSet.Seats()
	if n := len(m.Bots); n < lo || n > hi {
		want := fmt.Sprintf("%d", lo)
		if hi != lo {
			want = fmt.Sprintf("%d to %d", lo, hi)
		}
		return fmt.Errorf("match: %s takes %s players, got %d: %w", m.RuleSet.Name(), want, n, ErrSeats)
	}
	return nil
}

// prepareSeat readies bot process seat i: the note on its "python", its
// start-up allowance, and its runner, which sees the bot's folder and
// finds the interpreters of progs first. The closer, if any, ends the
// seat's runner once the match is over.
func (m Match) prepareSeat(ctx context.Context, i int, b *game.Bot, progs botexec.Programs, log *slog.Logger) (io.Closer, error) {
	if b.Console != nil || b.LoadError != nil {
		return nil, nil
	}
	if progs.Note != "" && namesPython(*b, m.RuleSet.Traits()) {
		b.Notes = append(append([]string(nil), b.Notes...), progs.Note)
	}
	if m.Calibrator != nil && !m.Options.NoLimit && b.Calibration == 0 {
		d, err := m.Calibrator.Calibrate(ctx, b.Language)
		if err != nil {
			// The bot still plays, without the allowance.
			log.Warn("calibration failed", "seat", i+1, "language", b.Language, "err", err)
		}
		b.Calibration = d
	}
	var closer io.Closer
	if m.SeatRunner != nil && b.Runner == nil {
		r, c, err := m.SeatRunner(ctx, i, *b, m.Options)
		if err != nil {
			return nil, fmt.Errorf("match: runner for %s: %w", seatLabel(i, *b), err)
		}
		b.Runner, closer = r, c
	}
	if b.Runner == nil {
		b.Runner = m.Options.Runner
	}
	if b.Runner == nil {
		return closer, fmt.Errorf("match: no runner for %s", seatLabel(i, *b))
	}
	b.Runner = withBotFolder{inner: b.Runner, mount: sandbox.Mount{Source: b.Dir, Writable: true}, programs: progs.Dir}
	return closer, nil
}

// playRules hands the seats to the rule set. A rule set must never panic
// on bot input; should one have a bug, the worker's other matches go on
// and this one is reported as failed.
func (m Match) playRules(ctx context.Context, bots []game.Bot, log *slog.Logger) (sum *game.Summary, err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("rule set panicked", "game", m.RuleSet.Name(), "panic", r, "stack", string(debug.Stack()))
			sum, err = nil, fmt.Errorf("match: %s engine failed: %v", m.RuleSet.Name(), r)
		}
	}()
	sum, err = m.RuleSet.Play(ctx, bots, m.Options)
	if err != nil {
		return nil, fmt.Errorf("match: play %s: %w", m.RuleSet.Name(), err)
	}
	if sum == nil {
		return nil, fmt.Errorf("match: %s returned no summary", m.RuleSet.Name())
	}
	return sum, nil
}

// programs is the interpreters folder of the rule set's "python".
func (m Match) programs() (botexec.Programs, error) {
	rt := m.Runtimes
	if rt == nil {
		rt = botexec.NewRuntimes()
	}
	p, err := rt.Programs(botexec.PythonFor(m.RuleSet.Traits()))
	if err != nil {
		return p, fmt.Errorf("match: %w", err)
	}
	return p, nil
}

// namesPython says whether the bot's start-up scripts run the bare "python".
func namesPython(b game.Bot, t game.Traits) bool {
	runFile := ""
	if len(b.Command) > 0 {
		if rel, err := filepath.Rel(b.Dir, b.Command[0]); err == nil && filepath.IsLocal(rel) {
			runFile = filepath.ToSlash(rel)
		}
	}
	for _, s := range botexec.StartScripts(b.Dir, t, runFile) {
		named, _ := botexec.NamedPrograms(b.Dir, s)
		for _, n := range named {
			if n.Program == "python" {
				return true
			}
		}
	}
	return false
}

// withBotFolder makes every command of a seat see the bot's own folder,
// writable, whatever mounts the rule set asks for: bots run in their
// folder and may keep files there between turns. With programs set, that
// folder of interpreters comes first on the command's PATH, so a #! line
// or a run.sh finds the same interpreters inside the sandbox and out.
type withBotFolder struct {
	inner    sandbox.Runner
	mount    sandbox.Mount
	programs string
}

func (r withBotFolder) cmd(c sandbox.Cmd) sandbox.Cmd {
	if r.programs != "" {
		c.Path = append([]string{r.programs}, c.Path...)
	}
	for _, m := range c.Mounts {
		if m.Source == r.mount.Source && m.Writable {
			return c
		}
	}
	c.Mounts = append(append([]sandbox.Mount(nil), c.Mounts...), r.mount)
	return c
}

// Run runs c with the bot folder mounted.
func (r withBotFolder) Run(ctx context.Context, c sandbox.Cmd) (sandbox.Result, error) {
	return r.inner.Run(ctx, r.cmd(c))
}

// Start starts c with the bot folder mounted.
func (r withBotFolder) Start(ctx context.Context, c sandbox.Cmd) (sandbox.Process, error) {
	return r.inner.Start(ctx, r.cmd(c))
}
