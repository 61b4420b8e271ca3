package jobs

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/broadside/broadside/internal/botexec"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/match"
	"github.com/broadside/broadside/internal/sandbox"
)

// seatRunners gives every bot of a match its own sandbox and plays the
// match through internal/match, as the battleship command does.
type seatRunners struct {
	bwrap      *sandbox.Bwrap // nil: bots run on the host (SANDBOX=off)
	host       *sandbox.Host
	limits     sandbox.Limits
	loader     *match.Loader
	calibrator *botexec.Calibrator
}

func newSeatRunners(deps Deps) (*seatRunners, error) {
	s := &seatRunners{bwrap: deps.Bwrap, limits: deps.TurnLimits, loader: match.NewLoader()}
	var runner sandbox.Runner
	if deps.Bwrap != nil {
		runner = deps.Bwrap
	} else {
		s.host = sandbox.NewHost(sandbox.HostConfig{TurnDefaults: deps.TurnLimits})
		runner = s.host
	}
	cal, err := botexec.NewCalibrator(runner, s.loader.Runtimes, filepath.Join(deps.WorkDir, "calibration"))
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	s.calibrator = cal
	return s, nil
}

// play loads the bot folders in seat order and plays the match.
func (s *seatRunners) play(ctx context.Context, rs game.RuleSet, dirs []string, opts game.Options) (*game.Summary, error) {
	bots := make([]game.Bot, len(dirs))
	for i, d := range dirs {
		bots[i], _ = s.loader.Load(d)
	}
	m := match.Match{RuleSet: rs, Bots: bots, Options: opts, Calibrator: s.calibrator, Runtimes: s.loader.Runtimes}
	if s.bwrap != nil {
		m.SeatRunner = s.session
		// Each seat's session shows a turn only its own round folder.
		m.Options.ConfinedTurns = true
	} else {
		m.Options.Runner = s.host
	}
	return m.Play(ctx)
}

// session starts the seat's own sandbox. It sees the bot's folder and,
// per turn, only that turn's own round folder inside the replay folder
// (PerCommand), so every turn runs in the one session and never sees the
// other player's files.
func (s *seatRunners) session(_ context.Context, _ int, bot game.Bot, opts game.Options) (sandbox.Runner, io.Closer, error) {
	mounts := []sandbox.Mount{{Source: bot.Dir, Writable: true}}
	if opts.ReplayDir != "" {
		if err := os.MkdirAll(opts.ReplayDir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("jobs: replay folder: %w", err)
		}
		mounts = append(mounts, sandbox.Mount{Source: opts.ReplayDir, Writable: true, PerCommand: true})
	}
	sess, err := s.bwrap.NewSession(mounts, s.limits)
	if err != nil {
		return nil, nil, err
	}
	return sess, sess, nil
}
