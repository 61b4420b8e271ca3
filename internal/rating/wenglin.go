package rating

import (
	"fmt"
	"math"
)

// Weng–Lin rating (Weng and Lin, "A Bayesian Approximation Method for
// Online Ranking", JMLR 12, 2011), with the Plackett–Luce model of their
// Algorithm 4, the model OpenSkill uses by default. It rates a game of any
// number of players from their finishing order in one step, where
// Glicko-2 would have to pretend each player met each other one alone.
//
// The paper's scale (μ 25, σ 25/3, β σ/2) is only a scale: every update is
// unchanged when μ, σ, β and τ are all multiplied by the same factor. The
// platform uses Glicko-2's scale (μ 1500, σ 350, β 175), so a Hit and Sunk
// rating reads like the others and sorts by the same conservative rating,
// μ − 2σ.

// WengLinParams tunes the Weng–Lin update.
type WengLinParams struct {
	// Beta is the spread of one game's performance around a player's skill.
	Beta float64
	// Kappa keeps a deviation from shrinking by more than a factor of
	// sqrt(Kappa) in one game.
	Kappa float64
	// Tau is added to every deviation (in quadrature) before a game, so a
	// bot that changes keeps some room to move.
	Tau float64
}

// DefaultWengLin is the platform's Weng–Lin on the Glicko scale: the
// paper's defaults multiplied by 350 / (25/3) = 42.
func DefaultWengLin() WengLinParams {
	return WengLinParams{Beta: DefaultDeviation / 2, Kappa: 0.0001, Tau: DefaultDeviation / 100}
}

// WengLinMatch rates one game from each player's rating before it and
// finishing rank (1 for the winner; equal ranks tie). It returns the new
// ratings in the players' order; volatility is carried over unchanged.
func (p WengLinParams) WengLinMatch(players []Player) ([]Rating, error) {
	if len(players) < 2 {
		return nil, ErrTooFewPlayers
	}
	n := len(players)
	mu := make([]float64, n)
	sigmaSq := make([]float64, n)
	var cSq float64
	for i, pl := range players {
		if pl.Rank < 1 {
			return nil, fmt.Errorf("rating: player %d has rank %d, want 1 or more", i, pl.Rank)
		}
		mu[i] = pl.Before.Rating
		sigmaSq[i] = pl.Before.Deviation*pl.Before.Deviation + p.Tau*p.Tau
		cSq += sigmaSq[i] + p.Beta*p.Beta
	}
	c := math.Sqrt(cSq)
	// exp(μ_i / c), shifted by the largest μ: the ratios below are the
	// same, and a large rating cannot overflow.
	top := mu[0]
	for _, m := range mu {
		top = max(top, m)
	}
	strength := make([]float64, n)
	for i := range mu {
		strength[i] = math.Exp((mu[i] - top) / c)
	}
	// sumQ[q]: the strengths of the players who finished no better than q;
	// tied[q]: how many share q's rank.
	sumQ := make([]float64, n)
	tied := make([]float64, n)
	for q := range players {
		for i := range players {
			if players[i].Rank >= players[q].Rank {
				sumQ[q] += strength[i]
			}
			if players[i].Rank == players[q].Rank {
				tied[q]++
			}
		}
	}
	out := make([]Rating, n)
	for i := range players {
		var omega, delta float64
		for q := range players {
			if players[q].Rank > players[i].Rank {
				continue
			}
			share := strength[i] / sumQ[q]
			if i == q {
				omega += (1 - share) / tied[q]
			} else {
				omega -= share / tied[q]
			}
			delta += share * (1 - share) / tied[q]
		}
		gamma := math.Sqrt(sigmaSq[i]) / c
		newMu := mu[i] + sigmaSq[i]/c*omega
		shrink := math.Max(1-gamma*sigmaSq[i]/cSq*delta, p.Kappa)
		out[i] = Rating{
			Rating:     newMu,
			Deviation:  math.Sqrt(sigmaSq[i] * shrink),
			Volatility: players[i].Before.Volatility,
		}
	}
	return out, nil
}
