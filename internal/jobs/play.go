package jobs

import (
	"context"
	"fmt"
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
	stall      stallClock // the machine's, for overloadGuard
}

func newSeatRunners(deps Deps) (*seatRunners, error) {
	s := &seatRunners{bwrap: deps.Bwrap, limits: deps.TurnLimits, loader: match.NewLoader(deps.Games), stall: machinePressure()}
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
	var runner sandbox.Runner = s.host
	if s.bwrap != nil {
		runner = s.bwrap
	}
	// Every seat's time-outs are checked against the machine's load.
	m.Sandbox(runner, s.limits, func(r sandbox.Runner) sandbox.Runner { return overloadGuard{Runner: r, stall: s.stall} })
	return m.Play(ctx)
}
