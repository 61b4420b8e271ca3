package web

import (
	"fmt"

	"github.com/broadside/broadside/internal/game/brainjar"
	"github.com/broadside/broadside/web/page"
)

// brainjarStep shows a BrainJar game after its first i shots (step 0 is
// the placement): each player's waters with its fleet and the shots
// against it.
func brainjarStep(data []byte, i int, names seatNames) (*page.ReplayRound, error) {
	var r brainjar.Replay
	if err := decodeReplay(data, &r); err != nil {
		return nil, err
	}
	if len(r.Players) != 2 {
		return nil, fmt.Errorf("brainjar replay has %d players, want 2", len(r.Players))
	}
	for k := range r.Players {
		r.Players[k].Name = names.name(r.Players[k].Key, r.Players[k].Name)
	}
	n := len(r.Shots) + 1
	i = stepIndex(i, n)
	out := &page.ReplayRound{
		Index: i, Count: n, Unit: "shot", Name: "Placement",
		Legend: "S ship, X hit, o miss, . open water. Columns are the first digit of a cell, rows the second.",
	}
	if i > 0 {
		out.Name = fmt.Sprintf("Shot %d of %d", i, len(r.Shots))
	}
	grids := [2]*grid{newGrid(brainjar.Size, brainjar.Size), newGrid(brainjar.Size, brainjar.Size)}
	for p, pl := range r.Players {
		for _, s := range pl.Ships {
			for _, c := range s.Cells {
				if col, row, ok := digitCell(c); ok {
					grids[p].set(col, row, 'S')
				}
			}
		}
		if i == 0 && pl.Error != "" {
			out.Events = append(out.Events, fmt.Sprintf("%s: %s", pl.Name, pl.Error))
		}
	}
	for k, s := range r.Shots[:i] {
		if s.Player < 0 || s.Player > 1 {
			continue
		}
		target := grids[1-s.Player]
		if col, row, ok := digitCell(s.Cell); ok {
			mark := byte('o')
			if s.Result != "miss" {
				mark = 'X'
			}
			target.set(col, row, mark)
		}
		if k == i-1 {
			out.Events = append(out.Events, fmt.Sprintf("%s fires at %s: %s", r.Players[s.Player].Name, s.Cell, s.Result))
		}
	}
	if i == n-1 {
		out.Events = append(out.Events, winnerLine(r.Winner, r.Players, func(p brainjar.ReplayPlayer) (string, string) { return p.Key, p.Name }))
	}
	for p, pl := range r.Players {
		out.Boards = append(out.Boards, page.Board{Title: pl.Name + "'s waters", Text: grids[p].text(numberLabel)})
	}
	return out, nil
}

// digitCell reads BrainJar's "XY" cell: column digit, then row digit.
func digitCell(s string) (col, row int, ok bool) {
	if len(s) != 2 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return 0, 0, false
	}
	return int(s[0] - '0'), int(s[1] - '0'), true
}

// winnerLine names the winner by key, or says the game was drawn.
func winnerLine[P any](winner *string, players []P, keyName func(P) (string, string)) string {
	if winner == nil {
		return "The game ends in a draw."
	}
	for _, p := range players {
		if k, name := keyName(p); k == *winner {
			return name + " wins."
		}
	}
	return *winner + " wins."
}
