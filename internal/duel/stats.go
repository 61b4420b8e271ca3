// Package duel plays many games between two bots and decides which is
// better: a sequential probability ratio test on A's score stops the duel
// as soon as the games played are enough, and a Wilson interval says how
// sure the score is. It knows nothing of how a game is played; the caller
// hands it a function that plays one.
package duel

import "math"

// Score is a tally of games, from A's side.
type Score struct {
	WinsA, WinsB, Draws int
}

// Games is the number of games tallied.
func (s Score) Games() int { return s.WinsA + s.WinsB + s.Draws }

// Add returns the two tallies together.
func (s Score) Add(o Score) Score {
	return Score{WinsA: s.WinsA + o.WinsA, WinsB: s.WinsB + o.WinsB, Draws: s.Draws + o.Draws}
}

// Rate is A's win rate with a draw counted as half a win; 0.5 before any
// game, when nothing says either bot is ahead.
func (s Score) Rate() float64 {
	n := s.Games()
	if n == 0 {
		return 0.5
	}
	return (float64(s.WinsA) + float64(s.Draws)/2) / float64(n)
}

// z95 is the standard normal quantile of 0.975: a two-sided 95% interval.
const z95 = 1.959963984540054

// Wilson95 is the 95% Wilson score interval of A's win rate, draws
// counted as half a win: the interval of a binomial proportion that stays
// inside [0, 1] and behaves at 0 and n wins, where the normal
// approximation does not. Before any game it is [0, 1].
func Wilson95(s Score) (lo, hi float64) {
	return wilson(s, z95)
}

func wilson(s Score, z float64) (lo, hi float64) {
	n := float64(s.Games())
	if n == 0 {
		return 0, 1
	}
	p := s.Rate()
	z2 := z * z
	centre := (p + z2/(2*n)) / (1 + z2/n)
	half := z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / (1 + z2/n)
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// Decision is what the sequential test says after the games it has seen.
type Decision int

const (
	// Continue: not enough games yet.
	Continue Decision = iota
	// ABetter: A's win rate is at least 0.5+δ rather than at most 0.5.
	ABetter
	// BBetter: A's win rate is at most 0.5-δ rather than at least 0.5.
	BBetter
	// NoDifference: neither bot is better by δ; the two bots are as good
	// as each other within δ.
	NoDifference
)

// Verdict is the decision as the command prints it: "A better", "B
// better", else "undecided" (no difference of δ, or the games ran out).
func (d Decision) Verdict() string {
	switch d {
	case ABetter:
		return "A better"
	case BBetter:
		return "B better"
	}
	return "undecided"
}

// Test is the parameters of the sequential test.
type Test struct {
	// Delta is the smallest difference of win rate from 0.5 that counts
	// as one bot being better (0 < Delta < 0.5).
	Delta float64
	// Alpha is the chance of calling a bot better when it is not better
	// at all; Beta the chance of missing a bot that is better by Delta.
	Alpha, Beta float64
}

// DefaultTest is δ = 0.1 (a 60% win rate counts as better), α = β = 0.05:
// with δ = 0.05 the test needs about 500 games for a 55% bot, more than a
// duel's usual 200.
var DefaultTest = Test{Delta: 0.1, Alpha: 0.05, Beta: 0.05}

// hypothesis is the state of one of the two SPRTs.
type hypothesis int

const (
	open     hypothesis = iota
	accepted            // H1: this side is better by δ
	rejected            // H0: this side is not better
)

// SPRT is the Sobel–Wald three-way test made of two Wald SPRTs on A's
// win rate p, run side by side on the same games:
//
//	test A: H0 p = 0.5 against H1 p = 0.5 + δ
//	test B: H0 p = 0.5 against H1 p = 0.5 − δ
//
// A game scores x = 1 for A's win, ½ for a draw, 0 for A's loss, and adds
// x·ln(p1/p0) + (1−x)·ln((1−p1)/(1−p0)) to each test's log-likelihood
// ratio (the Bernoulli likelihood, a draw being half a win and half a
// loss). A test stops at its first crossing of ln(β/(1−α)) (H0) or
// ln((1−β)/α) (H1). "A better" when test A accepts H1, "B better" when
// test B does, no difference when both accept H0. One test p = 0.5 − δ
// against p = 0.5 + δ would be simpler, but it must end on one side or the
// other: for two equal bots it names a better one about half the time.
type SPRT struct {
	test           Test
	lower, upper   float64 // Wald's bounds
	stepWin        float64 // ln((0.5+δ)/0.5): test A's step for A's win, test B's for A's loss
	stepLoss       float64 // ln((0.5−δ)/0.5): the other way round
	llrA, llrB     float64
	stateA, stateB hypothesis
}

// NewSPRT returns the test before any game.
func NewSPRT(t Test) *SPRT {
	return &SPRT{
		test:     t,
		lower:    math.Log(t.Beta / (1 - t.Alpha)),
		upper:    math.Log((1 - t.Beta) / t.Alpha),
		stepWin:  math.Log((0.5 + t.Delta) / 0.5),
		stepLoss: math.Log((0.5 - t.Delta) / 0.5),
	}
}

// Observe adds games to both tests and says what they decide. Games that
// must be judged together (the two halves of a pair) are observed at
// once: the bounds are checked only after all of them.
func (s *SPRT) Observe(g Score) Decision {
	win := float64(g.WinsA) + float64(g.Draws)/2
	loss := float64(g.WinsB) + float64(g.Draws)/2
	s.llrA += win*s.stepWin + loss*s.stepLoss
	s.llrB += win*s.stepLoss + loss*s.stepWin
	s.stateA = s.check(s.stateA, s.llrA)
	s.stateB = s.check(s.stateB, s.llrB)
	return s.Decision()
}

// check is one test's state after its ratio moved; a decided test stays so.
func (s *SPRT) check(h hypothesis, llr float64) hypothesis {
	switch {
	case h != open:
		return h
	case llr >= s.upper:
		return accepted
	case llr <= s.lower:
		return rejected
	}
	return open
}

// Decision is the three-way decision so far.
func (s *SPRT) Decision() Decision {
	switch {
	case s.stateA == accepted:
		return ABetter
	case s.stateB == accepted:
		return BBetter
	case s.stateA == rejected && s.stateB == rejected:
		return NoDifference
	}
	return Continue
}

// LLR returns both tests' log-likelihood ratios (A better, B better) and
// the bounds, for progress lines and tests.
func (s *SPRT) LLR() (a, b, lower, upper float64) {
	return s.llrA, s.llrB, s.lower, s.upper
}
