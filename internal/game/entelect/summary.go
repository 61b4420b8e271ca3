package entelect

import (
	"github.com/broadside/broadside/internal/game"
)

// summary reports how the match ended, players in seat order.
func (m *match) summary() *game.Summary {
	s := &m.state
	lb := s.Leaderboard()
	winner := Key(lb[0])
	sum := &game.Summary{Game: Name, Winner: &winner, Rounds: s.Round, Seed: m.opts.Seed}
	for p, st := range m.seats {
		pl := &s.Players[p]
		ps := game.PlayerSummary{
			Key:         st.key,
			Name:        st.name,
			Points:      pl.Points,
			ShipsLeft:   s.ShipsRemaining(p),
			ShotsFired:  pl.ShotsFired,
			ShotsLanded: pl.ShotsHit,
			Killed:      pl.Killed,
			Rank:        1,
			Log:         st.log.String(),
		}
		if lb[1] == p {
			ps.Rank = 2
			ps.Reason = s.lossReason(p)
			if st.bot.LoadError != nil {
				ps.Reason = "bot could not be loaded: " + st.bot.LoadError.Error()
			}
		}
		sum.Players = append(sum.Players, ps)
	}
	return sum
}

// lossReason says why player p ranks below its opponent (§8).
func (s *State) lossReason(p int) string {
	a, b := &s.Players[p], &s.Players[1-p]
	switch {
	case a.KillReason != "":
		return a.KillReason
	case a.Killed && b.Killed:
		return "both fleets were sunk in the same round; the opponent ranks higher on the tie-break"
	case a.Killed:
		return "all ships destroyed"
	case a.Points != b.Points:
		return "fewer points when the round limit was reached"
	case a.FirstShotLanded != b.FirstShotLanded:
		return "equal points at the round limit; the opponent landed its first hit earlier"
	case a.FailedPlacements != b.FailedPlacements:
		return "equal points at the round limit; more failed ship placements"
	}
	return "complete tie at the round limit: player A wins"
}
