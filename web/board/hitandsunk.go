package board

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/broadside/broadside/internal/game/hitandsunk"
)

// hitandsunkGame is a Hit and Sunk free-for-all: step 0 is the start,
// step i the board after round i.
type hitandsunkGame struct{ r hitandsunk.Replay }

// scanReach is how far a scan sees from the bow: the full 19×19 window.
const scanReach = 9

func openHitandsunk(data []byte) (game, error) {
	var g hitandsunkGame
	if err := json.Unmarshal(data, &g.r); err != nil {
		return nil, fmt.Errorf("decode hitandsunk replay.json: %w", err)
	}
	if g.r.Size < 1 || g.r.Size > 1000 {
		return nil, fmt.Errorf("hitandsunk replay: board size %d", g.r.Size)
	}
	return &g, nil
}

func (g *hitandsunkGame) count() int { return len(g.r.Ends) + 1 }

func (g *hitandsunkGame) names(o Options) map[int]string {
	names := map[int]string{}
	for _, p := range g.r.Players {
		names[p.ID] = o.name(p.Key, p.Name)
	}
	return names
}

func (g *hitandsunkGame) frame(i int, o Options) (*Frame, error) {
	r := &g.r
	names := g.names(o)
	f := &Frame{Index: i, Count: g.count(), Unit: "round", Name: "Start",
		Note: "Every ship with its heading (the arrow is the bow); this round's shots are ringed, moves and scans outlined."}
	snap := r.Start
	round := 0
	if i > 0 {
		end := r.Ends[i-1]
		snap, round = end.Snapshot, end.Round
		f.Name = fmt.Sprintf("Round %d of %d", end.Round, r.Rounds)
		if o.inProgress {
			f.Name = fmt.Sprintf("Round %d", end.Round) // the last is not known yet
		}
	}
	gr := Grid{Title: "The sea", Cols: r.Size, Rows: r.Size, ColLabels: numbers(r.Size), RowLabels: numbers(r.Size)}
	for _, m := range snap.Mines {
		gr.Marks = append(gr.Marks, Mark{Cell{m[0], m[1]}, MarkMine})
	}
	shipType := map[int]string{}
	for _, p := range r.Players {
		shipType[p.ID] = p.Ship
	}
	for _, s := range snap.Ships {
		sh := Ship{Name: fmt.Sprintf("%s (ship %d, %s)", names[s.ID], s.ID, cmp.Or(shipType[s.ID], "ship")),
			Letter: strconv.Itoa(s.ID), Pointed: true, Sunk: !s.Alive, Faded: s.Underwater}
		hull := hitandsunk.Ship{X: s.X, Y: s.Y, Facing: s.Facing, Hull: make([]bool, len(s.Hull))}
		for k := range s.Hull {
			x, y := hull.Cell(k)
			sh.Cells = append(sh.Cells, Cell{x, y})
			sh.Hit = append(sh.Hit, s.Hull[k] != '1')
			if s.Hull[k] != '1' && s.Alive {
				gr.Marks = append(gr.Marks, Mark{Cell{x, y}, MarkHit})
			}
			if !s.Alive {
				gr.Marks = append(gr.Marks, Mark{Cell{x, y}, MarkWreck})
			}
		}
		gr.Ships = append(gr.Ships, sh)
		state := "afloat"
		switch {
		case !s.Alive:
			state = "sunk"
		case s.Underwater:
			state = "underwater"
		}
		pl := Player{Key: strconv.Itoa(s.ID), Name: names[s.ID], Stats: []Stat{
			{"Ship", cmp.Or(shipType[s.ID], "—") + ", " + state}, {"Score", strconv.Itoa(s.Score)},
			{"Hull", s.Hull}, {"Hits (sunk)", fmt.Sprintf("%d (%d)", s.Hits, s.Sunken)},
			{"Mines left", strconv.Itoa(s.Mines)},
		}}
		if s.Shield {
			pl.Stats = append(pl.Stats, Stat{"Shield", "up"})
		}
		f.Players = append(f.Players, pl)
	}
	if i == 0 {
		for _, p := range r.Players {
			if p.NoShip != "" {
				f.Events = append(f.Events, fmt.Sprintf("%s has no ship: %s", names[p.ID], p.NoShip))
			}
		}
	}
	var turns []hitandsunk.ReplayTurn
	var moved, scanned []Cell
	for _, t := range r.Turns {
		if i == 0 || t.Round != round {
			continue
		}
		turns = append(turns, t)
		f.Events = append(f.Events, hitandsunkTurn(names[t.Ship], t))
		for _, e := range t.Events {
			switch e.Kind {
			case "fire":
				gr.Marks = append(gr.Marks, Mark{Cell{e.X, e.Y}, MarkShot})
			case "forward", "back", "move", "rotate", "ram":
				moved = append(moved, Cell{e.X, e.Y})
			case "scan":
				for x := max(0, e.X-scanReach); x <= min(r.Size-1, e.X+scanReach); x++ {
					for y := max(0, e.Y-scanReach); y <= min(r.Size-1, e.Y+scanReach); y++ {
						scanned = append(scanned, Cell{x, y})
					}
				}
			}
		}
		if t.Failure != "" {
			setVerdict(f.Players, strconv.Itoa(t.Ship), "waited ("+t.Failure+")", true)
		}
	}
	if i == g.count()-1 && !o.inProgress && r.Result != nil {
		f.Events = append(f.Events, winnerLine(r.Result.Winner, func(key string) string {
			for _, p := range r.Players {
				if p.Key == key {
					return names[p.ID]
				}
			}
			return key
		}))
	}
	if len(scanned) > 0 {
		gr.Areas = append(gr.Areas, Area{Kind: AreaScan, Cells: dedupe(scanned)})
	}
	if len(moved) > 0 {
		gr.Areas = append(gr.Areas, Area{Kind: AreaWeapon, Cells: dedupe(moved)})
	}
	f.Grids = []Grid{gr}
	if i > 0 {
		f.Files = []File{jsonFile(fmt.Sprintf("replay.json: turns of round %d", round), turns),
			jsonFile(fmt.Sprintf("replay.json: roundEnds[%d]", i-1), r.Ends[i-1])}
	} else {
		f.Files = []File{jsonFile("replay.json: start", r.Start)}
	}
	return f, nil
}

func setVerdict(ps []Player, key, verdict string, failed bool) {
	for k := range ps {
		if ps[k].Key == key {
			ps[k].Command, ps[k].Verdict, ps[k].Failed = "Turn", verdict, failed
		}
	}
}

func dedupe(cells []Cell) []Cell {
	slices.SortFunc(cells, func(a, b Cell) int { return cmp.Or(cmp.Compare(a.Y, b.Y), cmp.Compare(a.X, b.X)) })
	return slices.Compact(cells)
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

// scores is each ship's score after every round, the leaders first.
func (g *hitandsunkGame) scores(o Options) []Series {
	names := g.names(o)
	idx := map[int]int{}
	var out []Series
	add := func(snap hitandsunk.Snapshot, step int) {
		for _, s := range snap.Ships {
			k, ok := idx[s.ID]
			if !ok {
				k = len(out)
				idx[s.ID] = k
				out = append(out, Series{Key: strconv.Itoa(s.ID), Name: names[s.ID], Points: make([]int, step)})
			}
			for len(out[k].Points) < step {
				out[k].Points = append(out[k].Points, 0)
			}
			out[k].Points = append(out[k].Points, s.Score)
		}
	}
	add(g.r.Start, 0)
	for i, e := range g.r.Ends {
		add(e.Snapshot, i+1)
	}
	for k := range out {
		for len(out[k].Points) < g.count() {
			out[k].Points = append(out[k].Points, out[k].Points[len(out[k].Points)-1])
		}
	}
	slices.SortStableFunc(out, func(a, b Series) int {
		return cmp.Compare(b.Points[len(b.Points)-1], a.Points[len(a.Points)-1])
	})
	return out
}
