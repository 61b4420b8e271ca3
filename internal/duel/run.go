package duel

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
)

// Outcome is how one game ended, from A's side.
type Outcome int

const (
	WinA Outcome = iota + 1
	WinB
	Draw
)

// String is the outcome as the --json summary writes it.
func (o Outcome) String() string {
	switch o {
	case WinA:
		return "A"
	case WinB:
		return "B"
	case Draw:
		return "draw"
	}
	return "?"
}

func (o Outcome) score() Score {
	switch o {
	case WinA:
		return Score{WinsA: 1}
	case WinB:
		return Score{WinsB: 1}
	}
	return Score{Draws: 1}
}

// Game is one game of a duel.
type Game struct {
	// Index is the game's place in the duel, from 0; games are counted in
	// this order.
	Index int
	// Seed is the game's match seed.
	Seed int64
	// SeatA is A's seat (0 or 1); B takes the other.
	SeatA int
}

// Config is one duel.
type Config struct {
	// Games is the most games to play (even when Paired).
	Games int
	// Paired plays each seed twice, A in seat 0 then in seat 1, and
	// counts the two games together.
	Paired bool
	// Jobs is how many games run at once.
	Jobs int
	// Seed is the master seed every game's seed is drawn from.
	Seed int64
	Test Test
}

// Played is a game counted in the result.
type Played struct {
	Game
	Outcome Outcome
}

// Result is a duel so far.
type Result struct {
	Score Score
	// Decision is the test's; Continue at the end means the games ran out
	// before it decided.
	Decision Decision
	// Played are the games counted, in order.
	Played []Played
}

// PlayFunc plays one game. An error means the game could not be played
// (not that a bot failed, which is a loss) and ends the duel.
type PlayFunc func(ctx context.Context, g Game) (Outcome, error)

// Schedule is the duel's games in order: seeds drawn one by one from a PCG
// generator seeded with the master seed, so a duel is the same from the
// same master seed. Without Paired each game has its own seed and A's seat
// alternates (seat 0 in even games); with Paired each seed serves two games
// in a row, A in seat 0 then in seat 1.
func Schedule(c Config) []Game {
	rng := rand.New(rand.NewPCG(uint64(c.Seed), 0))
	games := make([]Game, c.Games)
	for i := range games {
		games[i] = Game{Index: i, SeatA: i % 2}
		if c.Paired && i%2 == 1 {
			games[i].Seed = games[i-1].Seed
			continue
		}
		games[i].Seed = rng.Int64()
	}
	return games
}

// Run plays the duel: c.Jobs games at a time, in schedule order, until the
// test decides or c.Games are played. Results are counted in schedule
// order whatever order the games end in (a pair as one step), so a duel
// stops after the same games however fast each one ran; games started
// beyond the stop are canceled and not counted. progress, when set, is
// called after each counted step. The Result is returned with the error
// too, with what was counted before it.
func Run(ctx context.Context, c Config, play PlayFunc, progress func(Result)) (Result, error) {
	if c.Games < 1 || c.Jobs < 1 || (c.Paired && c.Games%2 != 0) {
		return Result{}, fmt.Errorf("duel: %d games, %d jobs, paired %v: bad config", c.Games, c.Jobs, c.Paired)
	}
	games := Schedule(c)
	playCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	type done struct {
		index   int
		outcome Outcome
		err     error
	}
	next := make(chan int)
	results := make(chan done)
	var wg sync.WaitGroup
	for range min(c.Jobs, len(games)) {
		wg.Go(func() {
			for i := range next {
				o, err := play(playCtx, games[i])
				results <- done{i, o, err}
			}
		})
	}
	go func() {
		defer close(next)
		for i := range games {
			select {
			case next <- i:
			case <-playCtx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	step := 1
	if c.Paired {
		step = 2
	}
	outcomes := make([]Outcome, len(games))
	sprt := NewSPRT(c.Test)
	var res Result
	var failed error
	stopped := false
	// The loop drains every result, so no player blocks on sending.
	for d := range results {
		if stopped {
			continue
		}
		if d.err != nil {
			failed = fmt.Errorf("game %d (seed %d): %w", d.index+1, games[d.index].Seed, d.err)
			stopped = true
			cancel()
			continue
		}
		outcomes[d.index] = d.outcome
		for n := len(res.Played); n+step <= len(games) && counted(outcomes[n:n+step]); n = len(res.Played) {
			var s Score
			for i := n; i < n+step; i++ {
				s = s.Add(outcomes[i].score())
				res.Played = append(res.Played, Played{Game: games[i], Outcome: outcomes[i]})
			}
			res.Score = res.Score.Add(s)
			res.Decision = sprt.Observe(s)
			if progress != nil {
				progress(res)
			}
			if res.Decision != Continue {
				stopped = true
				cancel()
				break
			}
		}
	}
	if res.Decision != Continue {
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("duel: %w", err)
	}
	if failed != nil {
		return res, fmt.Errorf("duel: %w", failed)
	}
	return res, nil
}

// counted says every game of a step has ended.
func counted(o []Outcome) bool {
	for _, x := range o {
		if x == 0 {
			return false
		}
	}
	return true
}
