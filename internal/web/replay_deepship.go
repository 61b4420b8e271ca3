package web

import (
	"fmt"
	"strings"

	"github.com/broadside/broadside/internal/game/deepship"
	"github.com/broadside/broadside/web/page"
)

// deepshipTurn is one step of a DeepShip round: a game's placement
// (event -1) or one of its turns.
type deepshipTurn struct{ game, event int }

// deepshipStep shows a DeepShip round turn by turn, across its games:
// both players' waters in the current game after that turn.
func deepshipStep(data []byte, i int, names seatNames) (*page.ReplayRound, error) {
	var r deepship.Replay
	if err := decodeReplay(data, &r); err != nil {
		return nil, err
	}
	if len(r.Players) != 2 {
		return nil, fmt.Errorf("deepship replay has %d players, want 2", len(r.Players))
	}
	for k := range r.Players {
		r.Players[k].Name = names.name(r.Players[k].Key, r.Players[k].Name)
	}
	var steps []deepshipTurn
	for g, gm := range r.Games {
		for e := -1; e < len(gm.Events); e++ {
			steps = append(steps, deepshipTurn{g, e})
		}
	}
	if len(steps) == 0 {
		return nil, nil
	}
	i = stepIndex(i, len(steps))
	st := steps[i]
	gm := r.Games[st.game]
	out := &page.ReplayRound{
		Index: i, Count: len(steps), Unit: "turn",
		Name:   fmt.Sprintf("Game %d of %d, placement", gm.Number, len(r.Games)),
		Legend: "S ship, X hit, o miss, . open water, ? no placement.",
	}
	if st.event >= 0 {
		out.Name = fmt.Sprintf("Game %d of %d, turn %d of %d", gm.Number, len(r.Games), st.event+1, len(gm.Events))
	}
	var grids [2]*grid
	for p := range 2 {
		grids[p] = newGrid(deepship.Cols, deepship.Rows)
		if gm.Ships[p] == nil {
			copy(grids[p].cells, strings.Repeat("?", len(grids[p].cells)))
		}
		for _, s := range gm.Ships[p] {
			for _, c := range s.Cells {
				if at, err := deepship.ParseCoord(c); err == nil {
					grids[p].set(at.Col, at.Row, 'S')
				}
			}
		}
	}
	for _, ev := range gm.Events[:st.event+1] {
		if ev.Player < 0 || ev.Player > 1 || ev.Coord == "" || ev.Result == "" {
			continue
		}
		if at, err := deepship.ParseCoord(ev.Coord); err == nil {
			mark := byte('X')
			if ev.Result == "miss" {
				mark = 'o'
			}
			grids[1-ev.Player].set(at.Col, at.Row, mark)
		}
	}
	if st.event >= 0 {
		out.Events = append(out.Events, deepshipEvent(r.Players[gm.Events[st.event].Player].Name, gm.Events[st.event]))
	} else if gm.Starter >= 0 && gm.Starter < 2 {
		out.Events = append(out.Events, r.Players[gm.Starter].Name+" fires first.")
	}
	if st.event == len(gm.Events)-1 {
		out.Events = append(out.Events, fmt.Sprintf("Game %d ends (%s): %s", gm.Number, gm.End,
			winnerLine(gm.Winner, r.Players, deepshipKeyName)))
		if st.game == len(r.Games)-1 {
			out.Events = append(out.Events, "Round: "+winnerLine(r.Winner, r.Players, deepshipKeyName))
		}
	}
	for p, pl := range r.Players {
		out.Boards = append(out.Boards, page.Board{Title: pl.Name + "'s waters", Text: grids[p].text(letterLabel)})
	}
	return out, nil
}

func deepshipKeyName(p deepship.ReplayPlayer) (string, string) { return p.Key, p.Name }

// deepshipEvent describes one turn in words.
func deepshipEvent(name string, ev deepship.ReplayEvent) string {
	s := name + ": " + ev.Kind
	if ev.Coord != "" {
		s += " at " + ev.Coord
	}
	if ev.Result != "" {
		s += ", " + ev.Result
	}
	if ev.Penalty != 0 {
		s += fmt.Sprintf(", penalty %d", ev.Penalty)
	}
	if ev.Note != "" {
		s += " (" + ev.Note + ")"
	}
	return s
}

// letterLabel labels rows A, B, C, ... as DeepShip coordinates do.
func letterLabel(r int) string { return string(rune('A' + r)) }
