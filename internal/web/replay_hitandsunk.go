package web

import (
	"fmt"
	"strings"

	"github.com/broadside/broadside/internal/game/hitandsunk"
	"github.com/broadside/broadside/web/page"
)

// hitandsunkStep shows a Hit and Sunk free-for-all at its start (step 0)
// or after round i: the whole board, every ship's state and the turns
// played in that round.
func hitandsunkStep(data []byte, i int, seats seatNames) (*page.ReplayRound, error) {
	var r hitandsunk.Replay
	if err := decodeReplay(data, &r); err != nil {
		return nil, err
	}
	if r.Size < 1 || r.Size > 1000 {
		return nil, fmt.Errorf("hitandsunk replay: board size %d", r.Size)
	}
	n := len(r.Ends) + 1
	i = stepIndex(i, n)
	out := &page.ReplayRound{
		Index: i, Count: n, Unit: "round", Name: "Start",
		Legend: "A digit is an intact segment of that seat's ship (its id's last digit), x a destroyed segment, * wreckage, M a mine, . open water.",
	}
	names := map[int]string{}
	for _, p := range r.Players {
		names[p.ID] = seats.name(p.Key, p.Name)
	}
	snap := r.Start
	if i > 0 {
		end := r.Ends[i-1]
		snap = end.Snapshot
		out.Name = fmt.Sprintf("Round %d of %d", end.Round, r.Rounds)
		for _, t := range r.Turns {
			if t.Round == end.Round {
				out.Events = append(out.Events, hitandsunkTurn(names[t.Ship], t))
			}
		}
	} else {
		for _, p := range r.Players {
			if p.NoShip != "" {
				out.Events = append(out.Events, fmt.Sprintf("%s has no ship: %s", names[p.ID], p.NoShip))
			}
		}
	}
	out.Boards = []page.Board{
		{Title: "Board", Text: hitandsunkBoard(r.Size, snap).text(numberLabel)},
		{Title: "Ships", Text: hitandsunkShips(names, snap)},
	}
	return out, nil
}

// hitandsunkBoard draws a snapshot as the engine's --pretty grid does.
func hitandsunkBoard(size int, snap hitandsunk.Snapshot) *grid {
	g := newGrid(size, size)
	for _, m := range snap.Mines {
		g.set(m[0], m[1], 'M')
	}
	for _, s := range snap.Ships {
		ship := hitandsunk.Ship{X: s.X, Y: s.Y, Facing: s.Facing, Hull: make([]bool, len(s.Hull))}
		for k := range s.Hull {
			x, y := ship.Cell(k)
			switch {
			case !s.Alive:
				g.set(x, y, '*')
			case s.Hull[k] == '1':
				g.set(x, y, byte('0'+s.ID%10))
			default:
				g.set(x, y, 'x')
			}
		}
	}
	return g
}

// hitandsunkShips lists every ship's state, one line each.
func hitandsunkShips(names map[int]string, snap hitandsunk.Snapshot) string {
	var b strings.Builder
	for _, s := range snap.Ships {
		state := "afloat"
		switch {
		case !s.Alive:
			state = "sunk"
		case s.Underwater:
			state = "underwater"
		}
		fmt.Fprintf(&b, "%2d %-20s %-10s hull %s at (%d,%d) score %d, hits %d, sunk %d, damage %d, mines %d",
			s.ID, names[s.ID], state, s.Hull, s.X, s.Y, s.Score, s.Hits, s.Sunken, s.Damage, s.Mines)
		if s.Shield {
			b.WriteString(", shield up")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// hitandsunkTurn describes one ship's turn in words.
func hitandsunkTurn(name string, t hitandsunk.ReplayTurn) string {
	s := fmt.Sprintf("%s (ship %d):", name, t.Ship)
	if t.Failure != "" {
		s += " waits (" + t.Failure + ")"
	}
	if t.Aborted {
		s += " turn aborted;"
	}
	for k, e := range t.Events {
		if k > 0 {
			s += ";"
		}
		s += " " + e.String()
	}
	if len(t.Events) == 0 && t.Failure == "" {
		s += " no events"
	}
	return s
}
