package match

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// Sandbox sets how the match's bots run, as the platform runs them. With
// runner a *sandbox.Bwrap, each seat gets its own session of it for the
// whole match (limits are each turn's defaults, see SessionSeats) and each
// turn sees only its own round folder, so the bots of a round may run at
// once. Any other runner (the host) runs every turn itself. guard, when
// set, wraps each seat's runner (the worker checks time-outs against the
// machine's load).
func (m *Match) Sandbox(runner sandbox.Runner, limits sandbox.Limits, guard func(sandbox.Runner) sandbox.Runner) {
	if guard == nil {
		guard = func(r sandbox.Runner) sandbox.Runner { return r }
	}
	b, ok := runner.(*sandbox.Bwrap)
	if !ok || b == nil {
		m.Options.Runner = guard(runner)
		return
	}
	sessions := SessionSeats(b, limits)
	m.SeatRunner = func(ctx context.Context, seat int, bot game.Bot, opts game.Options) (sandbox.Runner, io.Closer, error) {
		r, c, err := sessions(ctx, seat, bot, opts)
		if err != nil {
			return nil, nil, err
		}
		return guard(r), c, nil
	}
	m.Options.ConfinedTurns = true
}

// SessionSeats gives each seat its own sandbox session for the whole
// match: it sees the bot's folder and, per turn, only that turn's own
// round folder inside the replay folder (a PerCommand mount), so every
// turn of the seat runs in the one sandbox and never sees the other
// player's files. Namespaces, mounts and cgroups are set up once per seat
// per match instead of once per turn. Matches played with it set
// Options.ConfinedTurns.
func SessionSeats(b *sandbox.Bwrap, limits sandbox.Limits) SeatRunner {
	return func(_ context.Context, _ int, bot game.Bot, opts game.Options) (sandbox.Runner, io.Closer, error) {
		mounts := []sandbox.Mount{{Source: bot.Dir, Writable: true}}
		if opts.ReplayDir != "" {
			if err := os.MkdirAll(opts.ReplayDir, 0o755); err != nil {
				return nil, nil, fmt.Errorf("match: replay folder: %w", err)
			}
			mounts = append(mounts, sandbox.Mount{Source: opts.ReplayDir, Writable: true, PerCommand: true})
		}
		sess, err := b.NewSession(mounts, limits)
		if err != nil {
			return nil, nil, err
		}
		return sess, sess, nil
	}
}
