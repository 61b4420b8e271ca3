package page

import (
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/repro"
	"github.com/broadside/broadside/internal/store"
)

// reproLines are the battleship repro commands of viewerID's seats in m,
// in seat order; none when m has no replay or repro does not play its
// game.
func reproLines(m *store.MatchRow, viewerID int64) []string {
	if viewerID == 0 || m.ReplayKey == "" {
		return nil
	}
	r := repro.ForMatch(m, rulesets.Registry())
	var out []string
	for i := range r.Seats {
		for _, p := range m.Players {
			if p.Seat != i || p.OwnerID != viewerID {
				continue
			}
			if cmd, ok := repro.ReproCommand(r, i, repro.ReplayZip(m.ID)); ok {
				out = append(out, cmd)
			}
		}
	}
	return out
}
