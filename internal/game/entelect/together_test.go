package entelect

import (
	"context"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// meetingRunner runs commands on the host; its first command waits for a
// second one to start (or gives up after wait), which shows whether the
// two bots of a round run at once.
type meetingRunner struct {
	*sandbox.Host
	once, second sync.Once
	arrived      chan struct{}
	wait         time.Duration
	met          bool
}

func (r *meetingRunner) Run(ctx context.Context, c sandbox.Cmd) (sandbox.Result, error) {
	first := false
	r.once.Do(func() { first = true })
	if first {
		select {
		case <-r.arrived:
			r.met = true
		case <-time.After(r.wait):
		}
	} else {
		r.second.Do(func() { close(r.arrived) })
	}
	return r.Host.Run(ctx, c)
}

// TestPlayConfinedTurnsRunTogether: with each turn confined to its own
// folder the two bots of a round run at once, and the match is the same as
// when they run one after the other.
func TestPlayConfinedTurnsRunTogether(t *testing.T) {
	play := func(confined bool) (*game.Summary, *meetingRunner) {
		// Bots run at once start within moments of each other: the
		// confined match waits long, as it only waits that long when the
		// test fails; the match played in turn always waits it out.
		wait := 2 * time.Second
		if confined {
			wait = 10 * time.Second
		}
		r := &meetingRunner{Host: sandbox.NewHost(sandbox.HostConfig{}), arrived: make(chan struct{}), wait: wait}
		opts := game.Options{Seed: 11, Size: 1, ReplayDir: filepath.Join(t.TempDir(), "replay"), Tournament: true,
			ConfinedTurns: confined, Runner: r}
		sum, err := New().Play(context.Background(), []game.Bot{scriptBot(t, "sweep"), scriptBot(t, "sweep", "reverse")}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sum.Players {
			sum.Players[i].Log = "" // timestamps
		}
		return sum, r
	}
	together, r := play(true)
	if !r.met {
		t.Error("the bots of a round ran one after the other")
	}
	inTurn, r := play(false)
	if r.met {
		t.Error("unconfined bots ran at once: one could read the other's folder")
	}
	if !reflect.DeepEqual(together, inTurn) {
		t.Errorf("the match differs when the bots run at once:\n%+v\n%+v", together, inTurn)
	}
}
