package board

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/broadside/broadside/internal/game/deepship"
)

// deepshipGame is an In Deep Ship round of several games, turn by turn:
// each game's placement, then each of its turns.
type deepshipGame struct {
	r     deepship.Replay
	steps []deepshipStep
}

type deepshipStep struct{ game, event int }

func openDeepship(data []byte) (rules, error) {
	var g deepshipGame
	if err := json.Unmarshal(data, &g.r); err != nil {
		return nil, fmt.Errorf("decode deepship replay.json: %w", err)
	}
	if len(g.r.Players) != 2 {
		return nil, fmt.Errorf("deepship replay has %d players, want 2", len(g.r.Players))
	}
	for k, gm := range g.r.Games {
		for e := -1; e < len(gm.Events); e++ {
			g.steps = append(g.steps, deepshipStep{k, e})
		}
	}
	return &g, nil
}

func (g *deepshipGame) count() int { return len(g.steps) }

func deepshipCell(s string) (Cell, bool) {
	at, err := deepship.ParseCoord(s)
	if err != nil {
		return Cell{}, false
	}
	return Cell{X: at.Col, Y: at.Row}, true
}

func (g *deepshipGame) frame(i int, o Options) (*Frame, error) {
	r := &g.r
	st := g.steps[i]
	gm := r.Games[st.game]
	// A running match's game count, and its current game's turn count,
	// are not known yet.
	gameOver := !o.inProgress || gm.End != ""
	game := fmt.Sprintf("Game %d of %d", gm.Number, len(r.Games))
	if o.inProgress {
		game = fmt.Sprintf("Game %d", gm.Number)
	}
	f := &Frame{Index: i, Count: len(g.steps), Unit: "turn", Name: game + ", placement",
		Note: "Each player's waters in this game; the last shot is ringed."}
	if st.event >= 0 {
		f.Name = fmt.Sprintf("%s, turn %d of %d", game, st.event+1, len(gm.Events))
		if !gameOver {
			f.Name = fmt.Sprintf("%s, turn %d", game, st.event+1)
		}
	}
	var names [2]string
	for p, pl := range r.Players {
		names[p] = o.name(pl.Key, pl.Name)
	}
	f.Grids = g.waters(gm, names)
	hits := drawDeepshipShots(f.Grids, gm, st.event)
	if st.event >= 0 {
		f.Files = []File{jsonFile(fmt.Sprintf("replay.json: games[%d].events[%d]", st.game, st.event), gm.Events[st.event])}
		ev := gm.Events[st.event]
		if ev.Player >= 0 && ev.Player < 2 {
			f.Events = append(f.Events, deepshipEvent(names[ev.Player], ev))
		}
	} else {
		f.Files = []File{jsonFile(fmt.Sprintf("replay.json: games[%d].ships", st.game), gm.Ships)}
		if gm.Starter >= 0 && gm.Starter < 2 {
			f.Events = append(f.Events, names[gm.Starter]+" fires first.")
		}
	}
	wins := g.score(f, st, gameOver, o, names)
	labels := deepshipLabels(gm.Number, st.event)
	for p, pl := range r.Players {
		f.Players = append(f.Players, Player{Key: pl.Key, Name: names[p], Stats: []Stat{
			{"Games won", strconv.Itoa(wins[p])}, {"Hits this game", strconv.Itoa(hits[p])},
		}})
		if l, ok := o.stepLog(pl.Key, names[p], labels...); ok {
			f.Logs = append(f.Logs, l)
		}
	}
	return f, nil
}

// waters are each player's waters in game gm, with its ships.
func (g *deepshipGame) waters(gm deepship.ReplayGame, names [2]string) []Grid {
	var grids []Grid
	for p := range g.r.Players {
		gr := Grid{Title: names[p] + "'s waters", Cols: deepship.Cols, Rows: deepship.Rows,
			ColLabels: numbers(deepship.Cols), RowLabels: letters(deepship.Rows)}
		if gm.Ships[p] == nil {
			gr.Alt = names[p] + "'s waters: no ships were placed in this game."
		}
		for k, s := range gm.Ships[p] {
			sh := Ship{Name: fmt.Sprintf("Ship %d (%d cells, %s at %s)", k+1, s.Size, s.Orientation, s.At), Letter: strconv.Itoa(s.Size)}
			for _, c := range s.Cells {
				if at, ok := deepshipCell(c); ok {
					sh.Cells = append(sh.Cells, at)
					sh.Hit = append(sh.Hit, false)
				}
			}
			gr.Ships = append(gr.Ships, sh)
		}
		grids = append(grids, gr)
	}
	return grids
}

// drawDeepshipShots draws game gm's shots up to event on the waters shot
// at, ringing the last, sinks the ships all hit, and counts each player's
// hits.
func drawDeepshipShots(grids []Grid, gm deepship.ReplayGame, event int) [2]int {
	var hits [2]int
	for k, ev := range gm.Events[:event+1] {
		if ev.Player < 0 || ev.Player > 1 || ev.Coord == "" || ev.Result == "" {
			continue
		}
		at, ok := deepshipCell(ev.Coord)
		if !ok {
			continue
		}
		gr := &grids[1-ev.Player]
		kind := MarkMiss
		if ev.Result != "miss" {
			kind = MarkHit
			hits[ev.Player]++
			hitShip(gr, at, false)
		}
		gr.Marks = append(gr.Marks, Mark{at, kind})
		if k == event {
			gr.Marks = append(gr.Marks, Mark{at, MarkShot})
		}
	}
	for p := range grids {
		sinkFull(&grids[p])
	}
	return hits
}

// score counts each player's games won up to step st (the round's score
// as it stood) and tells the end of the game, and of the match, when st
// is its last step.
func (g *deepshipGame) score(f *Frame, st deepshipStep, gameOver bool, o Options, names [2]string) [2]int {
	r := &g.r
	gm := r.Games[st.game]
	name := func(key string) string {
		for p, pl := range r.Players {
			if pl.Key == key {
				return names[p]
			}
		}
		return key
	}
	var wins [2]int
	for k := 0; k < st.game || (k == st.game && st.event == len(gm.Events)-1); k++ {
		w := r.Games[k].Winner
		for p, pl := range r.Players {
			if w != nil && *w == pl.Key {
				wins[p]++
			}
		}
		if k == st.game && gameOver {
			f.Events = append(f.Events, fmt.Sprintf("Game %d ends (%s): %s", gm.Number, gm.End, winnerLine(w, name)))
			if st.game == len(r.Games)-1 && !o.inProgress {
				f.Events = append(f.Events, "Match: "+winnerLine(r.Winner, name))
			}
		}
	}
	return wins
}

// deepshipLabels are the bot-log steps of event (-1: placement) of game
// number: a turn may record several events (a late answer, then the
// shot), and the bot's lines of an event are under the turn that began it.
func deepshipLabels(number, event int) []string {
	var labels []string
	for e := event; e >= 0 && e > event-4; e-- {
		labels = append(labels, deepship.StepTurn(number, e+1))
	}
	if event < 4 {
		labels = append(labels, deepship.StepPlacement(number))
	}
	return labels
}

// sinkFull marks ships whose every cell is hit as sunk.
func sinkFull(g *Grid) {
	for s := range g.Ships {
		sh := &g.Ships[s]
		sh.Sunk = len(sh.Cells) > 0 && sh.Damage() == len(sh.Cells)
	}
}

// deepshipEvent describes one turn in words, with the cell as the board
// labels it (row letter, column number).
func deepshipEvent(name string, ev deepship.ReplayEvent) string {
	var s string
	switch ev.Kind {
	case "shot":
		s = name + " fires at " + ev.Coord + ": " + deepshipResult(ev.Result)
	case "late":
		s = name + " answered late"
	case "skip":
		s = name + " did not answer in time: its turn is skipped"
	case "invalid":
		s = name + " sent an invalid answer"
		if ev.Coord != "" {
			s += " (" + ev.Coord + ")"
		}
	case "restart":
		s = name + "'s program is restarted"
	case "failure":
		s = name + " is out of the game"
	default:
		s = name + ": " + ev.Kind
	}
	if ev.Note != "" && ev.Kind != "shot" {
		s += ": " + ev.Note
	}
	if ev.Penalty == 1 {
		s += ", 1 penalty point"
	} else if ev.Penalty != 0 {
		s += fmt.Sprintf(", %d penalty points", ev.Penalty)
	}
	return s + "."
}

// deepshipResult says what a shot did: "miss", "hit" or "sink;<size>".
func deepshipResult(res string) string {
	if size, ok := strings.CutPrefix(res, "sink;"); ok {
		return "hit, and a ship of " + size + " cells sinks"
	}
	return res
}

// scores counts the games each player has won after every step.
func (g *deepshipGame) scores(o Options) []Series {
	out := make([]Series, 2)
	for p, pl := range g.r.Players {
		out[p] = Series{Key: pl.Key, Name: o.name(pl.Key, pl.Name)}
	}
	var wins [2]int
	for _, st := range g.steps {
		gm := g.r.Games[st.game]
		if st.event == len(gm.Events)-1 && gm.Winner != nil {
			for p, pl := range g.r.Players {
				if pl.Key == *gm.Winner {
					wins[p]++
				}
			}
		}
		for p := range out {
			out[p].Points = append(out[p].Points, wins[p])
		}
	}
	return out
}
