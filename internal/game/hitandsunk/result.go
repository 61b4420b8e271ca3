package hitandsunk

import (
	"fmt"
	"sort"

	"github.com/broadside/broadside/internal/game"
)

// Standing is one seat's result, the terms of the ranking.
type Standing struct {
	ID     int
	Score  int
	Dead   int
	Sunken int
	Hits   int
	Damage int
}

// Standings returns every seat's result, seats without a ship at zero.
func (g *Game) Standings() []Standing {
	out := make([]Standing, len(g.seats))
	for id, s := range g.seats {
		out[id].ID = id
		if s == nil {
			continue
		}
		out[id] = Standing{ID: id, Score: s.Score(), Sunken: s.Sunken, Hits: s.Hits, Damage: s.Damage}
		if !s.Alive() {
			out[id].Dead = 1
		}
	}
	return out
}

// beats is the controller's Score.compareTo: higher score, then fewer
// deaths, more sinkings, more hits, less damage.
func (a Standing) beats(b Standing) bool {
	switch {
	case a.Score != b.Score:
		return a.Score > b.Score
	case a.Dead != b.Dead:
		return a.Dead < b.Dead
	case a.Sunken != b.Sunken:
		return a.Sunken > b.Sunken
	case a.Hits != b.Hits:
		return a.Hits > b.Hits
	default:
		return a.Damage < b.Damage
	}
}

// Rank orders standings by the ranking and gives each its finishing
// position; seats equal on every term share a position (1, 1, 3) and are
// listed by seat.
func Rank(st []Standing) (ordered []Standing, ranks []int) {
	ordered = append([]Standing(nil), st...)
	sort.SliceStable(ordered, func(i, j int) bool {
		if ordered[i].beats(ordered[j]) || ordered[j].beats(ordered[i]) {
			return ordered[i].beats(ordered[j])
		}
		return ordered[i].ID < ordered[j].ID
	})
	ranks = make([]int, len(ordered))
	for i := range ordered {
		if i > 0 && !ordered[i-1].beats(ordered[i]) {
			ranks[i] = ranks[i-1]
		} else {
			ranks[i] = i + 1
		}
	}
	return ordered, ranks
}

// summary lists the players in finishing order.
func (m *match) summary() *game.Summary {
	ordered, ranks := Rank(m.g.Standings())
	sum := &game.Summary{Game: Name, Rounds: m.g.Round, Seed: m.opts.Seed}
	first := 0
	for _, r := range ranks {
		if r == 1 {
			first++
		}
	}
	for i, st := range ordered {
		s := m.seats[st.ID]
		p := game.PlayerSummary{
			Key:    s.bot.Key,
			Name:   s.bot.Name,
			Points: st.Score,
			Rank:   ranks[i],
			Killed: st.Dead == 1,
			Log:    s.log.b.String(),
		}
		if ship := m.g.Ship(st.ID); ship != nil {
			p.ShotsFired, p.ShotsLanded = ship.ShotsFired, ship.ShotsLanded
			if ship.Alive() {
				p.ShipsLeft = 1
			}
		}
		switch {
		case s.noShip != "":
			p.Reason = "no ship: " + s.noShip
		case p.Killed:
			p.Reason = m.sunkReason(st.ID)
		case ranks[i] == 1 && first > 1:
			p.Reason = fmt.Sprintf("tied for first with %d points", st.Score)
		case ranks[i] > 1:
			p.Reason = fmt.Sprintf("finished %s of %d with %d points", ordinal(ranks[i]), len(ordered), st.Score)
		}
		sum.Players = append(sum.Players, p)
	}
	if first == 1 {
		k := sum.Players[0].Key
		sum.Winner = &k
	}
	return sum
}

func (m *match) sunkReason(id int) string {
	by, ok := m.sunkBy[id]
	switch {
	case !ok:
		return "sunk"
	case by == id:
		return "sunk by its own fire or mine"
	default:
		return "sunk by " + m.seats[by].label()
	}
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
