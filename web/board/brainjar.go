package board

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/broadside/broadside/internal/game/brainjar"
)

// brainjarGame is a BrainJar replay: step 0 is the placement, step i the
// game after its first i shots.
type brainjarGame struct{ r brainjar.Replay }

func openBrainjar(data []byte) (rules, error) {
	var g brainjarGame
	if err := json.Unmarshal(data, &g.r); err != nil {
		return nil, fmt.Errorf("decode brainjar replay.json: %w", err)
	}
	if len(g.r.Players) != 2 {
		return nil, fmt.Errorf("brainjar replay has %d players, want 2", len(g.r.Players))
	}
	return &g, nil
}

func (g *brainjarGame) count() int { return len(g.r.Shots) + 1 }

// digitCell reads BrainJar's "XY" cell: column digit, then row digit.
func digitCell(s string) (Cell, bool) {
	if len(s) != 2 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return Cell{}, false
	}
	return Cell{X: int(s[0] - '0'), Y: int(s[1] - '0')}, true
}

func (g *brainjarGame) frame(i int, o Options) (*Frame, error) {
	r := &g.r
	f := &Frame{Index: i, Count: g.count(), Unit: "shot", Name: "Placement",
		Note: "Each player's waters with its fleet and the shots against it; the last shot is ringed."}
	if i > 0 {
		f.Name = fmt.Sprintf("Shot %d of %d", i, len(r.Shots))
		if o.inProgress {
			f.Name = fmt.Sprintf("Shot %d", i)
		}
	}
	names := [2]string{}
	for p, pl := range r.Players {
		names[p] = o.name(pl.Key, pl.Name)
		gr := Grid{Title: names[p] + "'s waters", Cols: brainjar.Size, Rows: brainjar.Size,
			ColLabels: numbers(brainjar.Size), RowLabels: numbers(brainjar.Size)}
		for k, s := range pl.Ships {
			sh := Ship{Name: fmt.Sprintf("Ship %d (%d cells)", k+1, s.Size), Letter: strconv.Itoa(s.Size)}
			for _, c := range s.Cells {
				if at, ok := digitCell(c); ok {
					sh.Cells = append(sh.Cells, at)
					sh.Hit = append(sh.Hit, false)
				}
			}
			gr.Ships = append(gr.Ships, sh)
		}
		f.Grids = append(f.Grids, gr)
		if i == 0 && pl.Error != "" {
			f.Events = append(f.Events, names[p]+": "+pl.Error)
		}
	}
	var hits, shots [2]int
	for k, s := range r.Shots[:i] {
		if s.Player < 0 || s.Player > 1 {
			continue
		}
		at, ok := digitCell(s.Cell)
		if !ok {
			continue
		}
		shots[s.Player]++
		gr := &f.Grids[1-s.Player]
		kind := MarkMiss
		if s.Result != "miss" {
			kind = MarkHit
			hits[s.Player]++
			hitShip(gr, at, s.Result == "sink")
		}
		gr.Marks = append(gr.Marks, Mark{at, kind})
		if k == i-1 {
			gr.Marks = append(gr.Marks, Mark{at, MarkShot})
			f.Events = append(f.Events, fmt.Sprintf("%s fires at %s: %s", names[s.Player], gr.cellName(at), shotWords(s.Result)))
		}
	}
	labels := []string{brainjar.StepPlacement}
	if i > 0 {
		labels = []string{brainjar.StepShot(i)}
	}
	if i == g.count()-1 && !o.inProgress {
		// The request that ended the game (a crash, a timeout) fired no
		// shot: its lines are under the shot it was asked for.
		labels = append(labels, brainjar.StepShot(i+1))
	}
	for p, pl := range r.Players {
		f.Players = append(f.Players, Player{Key: pl.Key, Name: names[p], Stats: []Stat{
			{"Shots", strconv.Itoa(shots[p])}, {"Hits", strconv.Itoa(hits[p])},
		}})
		if l, ok := o.stepLog(pl.Key, names[p], labels...); ok {
			f.Logs = append(f.Logs, l)
		}
	}
	if i > 0 {
		f.Files = []File{jsonFile(fmt.Sprintf("replay.json: shots[%d]", i-1), r.Shots[i-1])}
	} else {
		f.Files = []File{jsonFile("replay.json: players", r.Players)}
	}
	if i == g.count()-1 && !o.inProgress {
		f.Events = append(f.Events, winnerLine(r.Winner, func(key string) string {
			for p, pl := range r.Players {
				if pl.Key == key {
					return names[p]
				}
			}
			return key
		}))
	}
	return f, nil
}

// shotWords says what a shot did: BrainJar's "miss", "hit" or "sink".
func shotWords(result string) string {
	switch result {
	case "sink":
		return "hit, and the ship sinks"
	case "hit", "miss":
		return result
	}
	return result
}

// hitShip marks the ship cell at c as hit, and the ship sunk.
func hitShip(g *Grid, c Cell, sunk bool) {
	for s := range g.Ships {
		for k, sc := range g.Ships[s].Cells {
			if sc == c {
				g.Ships[s].Hit[k] = true
				g.Ships[s].Sunk = g.Ships[s].Sunk || sunk
			}
		}
	}
}

// winnerLine names the winner by key, or says the game was drawn.
func winnerLine(winner *string, name func(key string) string) string {
	if winner == nil {
		return "The game ends in a draw."
	}
	return name(*winner) + " wins."
}

func (g *brainjarGame) scores(o Options) []Series {
	out := make([]Series, 2)
	for p, pl := range g.r.Players {
		out[p] = Series{Key: pl.Key, Name: o.name(pl.Key, pl.Name), Points: []int{0}}
	}
	for _, s := range g.r.Shots {
		for p := range out {
			v := out[p].Points[len(out[p].Points)-1]
			if p == s.Player && s.Result != "miss" {
				v++
			}
			out[p].Points = append(out[p].Points, v)
		}
	}
	return out
}
