// Package rating computes ratings: Glicko-2 (Glickman, "Example of the
// Glicko-2 system", 2012) for two-player games and Weng–Lin (Plackett–Luce)
// for free-for-alls, both on Glicko's scale. It is pure: no I/O, no clock,
// no randomness, so replaying the same matches in the same order gives the
// same numbers.
//
// Every rated match, or pair of matches with the seats swapped, is one
// rating period for its players (see Period).
package rating

import (
	"errors"
	"fmt"
	"math"
)

// Glicko-2 constants.
const (
	// DefaultRating, DefaultDeviation and DefaultVolatility are a new bot's
	// values, as recommended by Glickman.
	DefaultRating     = 1500.0
	DefaultDeviation  = 350.0
	DefaultVolatility = 0.06
	// Tau constrains how fast volatility changes; 0.5 is Glickman's
	// example value and suits games with some luck.
	Tau = 0.5

	scale   = 173.7178 // between the Glicko and Glicko-2 scales
	epsilon = 0.000001 // convergence of the volatility iteration
)

// Rating is one player's Glicko-2 state on the Glicko scale.
type Rating struct {
	Rating     float64
	Deviation  float64
	Volatility float64
}

// Default returns a new player's rating.
func Default() Rating {
	return Rating{Rating: DefaultRating, Deviation: DefaultDeviation, Volatility: DefaultVolatility}
}

// Conservative is the rating leaderboards sort by: rating − 2 × deviation,
// so a bot climbs by proving itself, not by a lucky first game.
func (r Rating) Conservative() float64 { return r.Rating - 2*r.Deviation }

// Result is one game of a rating period against one opponent.
type Result struct {
	// Opponent is the opponent's rating before the period.
	Opponent Rating
	// Score is 1 for a win, 0.5 for a draw, 0 for a loss.
	Score float64
}

// Update returns a player's rating after a rating period with the given
// games, all against opponents' pre-period ratings. With no games only the
// deviation grows, as Glicko-2 prescribes.
func Update(r Rating, games []Result) Rating {
	mu := (r.Rating - DefaultRating) / scale
	phi := r.Deviation / scale
	sigma := r.Volatility
	if len(games) == 0 {
		phiStar := math.Sqrt(phi*phi + sigma*sigma)
		return Rating{Rating: r.Rating, Deviation: math.Min(phiStar*scale, DefaultDeviation), Volatility: sigma}
	}
	var vInv, sum float64
	for _, g := range games {
		muJ := (g.Opponent.Rating - DefaultRating) / scale
		gPhi := gFunc(g.Opponent.Deviation / scale)
		e := 1 / (1 + math.Exp(-gPhi*(mu-muJ)))
		vInv += gPhi * gPhi * e * (1 - e)
		sum += gPhi * (g.Score - e)
	}
	v := 1 / vInv
	delta := v * sum
	sigmaNew := newVolatility(phi, sigma, v, delta)
	phiStar := math.Sqrt(phi*phi + sigmaNew*sigmaNew)
	phiNew := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	muNew := mu + phiNew*phiNew*sum
	return Rating{
		Rating:     muNew*scale + DefaultRating,
		Deviation:  math.Min(phiNew*scale, DefaultDeviation),
		Volatility: sigmaNew,
	}
}

func gFunc(phi float64) float64 {
	return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi))
}

// newVolatility solves for σ' with the Illinois algorithm (step 5 of the
// paper).
func newVolatility(phi, sigma, v, delta float64) float64 {
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(Tau*Tau)
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*Tau) < 0 {
			k++
		}
		B = a - k*Tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > epsilon && i < 100; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	return math.Exp(A / 2)
}

// Player is one seat of a finished match for rating.
type Player struct {
	Before Rating
	// Rank is the finishing position, 1 for the winner; equal ranks draw.
	Rank int
}

// ErrTooFewPlayers is returned for a match of fewer than two players.
var ErrTooFewPlayers = errors.New("rating: a rated match needs at least two players")

// Method names a rating method. It is stored with every rating event, so
// history is replayed with the method that rated it.
type Method string

// The rating methods: Glicko-2 for two-player games, Weng–Lin for
// free-for-alls.
const (
	Glicko2 Method = "glicko2"
	WengLin Method = "wenglin"
)

// Period rates one rating period of the same players: the games they
// played together, each given as the players' finishing ranks in the
// players' order (one game for a match, two for a pair whose halves swap
// the seats). It returns the new ratings in the players' order.
//
// With Glicko-2 every game counts, for each player, as one game against
// each other player, all against the ratings before the period, so the two
// halves of a pair move a rating once, by their combined result. Weng–Lin
// rates the games one after the other.
func Period(m Method, before []Rating, games [][]int) ([]Rating, error) {
	if len(before) < 2 {
		return nil, ErrTooFewPlayers
	}
	if len(games) == 0 {
		return nil, errors.New("rating: a rating period needs at least one game")
	}
	for g, ranks := range games {
		if len(ranks) != len(before) {
			return nil, fmt.Errorf("rating: game %d ranks %d players, want %d", g, len(ranks), len(before))
		}
		for i, r := range ranks {
			if r < 1 {
				return nil, fmt.Errorf("rating: player %d has rank %d in game %d, want 1 or more", i, r, g)
			}
		}
	}
	switch m {
	case Glicko2:
		return glickoPeriod(before, games), nil
	case WengLin:
		cur := before
		for _, ranks := range games {
			players := make([]Player, len(cur))
			for i := range cur {
				players[i] = Player{Before: cur[i], Rank: ranks[i]}
			}
			next, err := DefaultWengLin().WengLinMatch(players)
			if err != nil {
				return nil, err
			}
			cur = next
		}
		return cur, nil
	}
	return nil, fmt.Errorf("rating: unknown method %q", m)
}

func glickoPeriod(before []Rating, games [][]int) []Rating {
	out := make([]Rating, len(before))
	for i := range before {
		results := make([]Result, 0, len(games)*(len(before)-1))
		for _, ranks := range games {
			for j := range before {
				if i == j {
					continue
				}
				score := 0.5
				switch {
				case ranks[i] < ranks[j]:
					score = 1
				case ranks[i] > ranks[j]:
					score = 0
				}
				results = append(results, Result{Opponent: before[j], Score: score})
			}
		}
		out[i] = Update(before[i], results)
	}
	return out
}

// Match rates one match as a Glicko-2 rating period: each player plays one
// game against each other player, scored by rank. It returns the new
// ratings in the players' order.
func Match(players []Player) ([]Rating, error) {
	before := make([]Rating, len(players))
	ranks := make([]int, len(players))
	for i, p := range players {
		before[i], ranks[i] = p.Before, p.Rank
	}
	return Period(Glicko2, before, [][]int{ranks})
}
