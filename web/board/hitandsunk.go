package board

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/broadside/broadside/internal/game/hitandsunk"
)

// hitandsunkGame is a Hit and Sunk free-for-all: step 0 is the start,
// step i the board after round i.
type hitandsunkGame struct{ r hitandsunk.Replay }

// scanReach is how far a scan sees from the bow: the full 19×19 window.
const scanReach = 9

func openHitandsunk(data []byte) (rules, error) {
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
	f.Players = g.drawShips(&gr, snap, names)
	var turns []hitandsunk.ReplayTurn
	if i == 0 {
		for _, p := range r.Players {
			if p.NoShip != "" {
				f.Events = append(f.Events, fmt.Sprintf("%s has no ship: %s", names[p.ID], p.NoShip))
			}
		}
	} else {
		turns = g.drawTurns(f, &gr, round, names)
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
	f.Grids = []Grid{gr}
	g.attachSources(f, i, round, turns, names, o)
	return f, nil
}

// drawShips draws every ship of snap on gr, with its hits or its wreck,
// and returns each ship's player panel.
func (g *hitandsunkGame) drawShips(gr *Grid, snap hitandsunk.Snapshot, names map[int]string) []Player {
	shipType := map[int]string{}
	for _, p := range g.r.Players {
		shipType[p.ID] = p.Ship
	}
	var players []Player
	for _, s := range snap.Ships {
		sh := Ship{Name: fmt.Sprintf("%s (ship %d, %s)", names[s.ID], s.ID, cmp.Or(shipType[s.ID], "ship")),
			Letter: strconv.Itoa(s.ID), Pointed: true, Sunk: !s.Alive, Faded: s.Underwater, Colour: colourOf(s.ID)}
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
		pl := Player{Key: strconv.Itoa(s.ID), Name: names[s.ID], Colour: colourOf(s.ID), Stats: []Stat{
			{"Ship", fmt.Sprintf("%d, %s, %s", s.ID, cmp.Or(shipType[s.ID], "—"), state)}, {"Score", signed(s.Score)},
			{"Hull", hullWords(s.Hull)}, {"Hits (sunk)", fmt.Sprintf("%d (%d)", s.Hits, s.Sunken)},
			{"Mines left", strconv.Itoa(s.Mines)},
		}}
		if s.Shield {
			pl.Stats = append(pl.Stats, Stat{"Shield", "up"})
		}
		players = append(players, pl)
	}
	return players
}

// drawTurns tells the turns of round in f's events and draws their shots,
// moves and scans on gr; it returns those turns.
func (g *hitandsunkGame) drawTurns(f *Frame, gr *Grid, round int, names map[int]string) []hitandsunk.ReplayTurn {
	r := &g.r
	var turns []hitandsunk.ReplayTurn
	var moved, scanned []Cell
	for _, t := range r.Turns {
		if t.Round != round {
			continue
		}
		turns = append(turns, t)
		f.Events = append(f.Events, hitandsunkTurn(names, *gr, t))
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
	if len(scanned) > 0 {
		gr.Areas = append(gr.Areas, Area{Kind: AreaScan, Cells: dedupe(scanned)})
	}
	if len(moved) > 0 {
		gr.Areas = append(gr.Areas, Area{Kind: AreaWeapon, Cells: dedupe(moved)})
	}
	return turns
}

// attachSources adds the step's part of each bot's log and of replay.json.
func (g *hitandsunkGame) attachSources(f *Frame, i, round int, turns []hitandsunk.ReplayTurn, names map[int]string, o Options) {
	r := &g.r
	label := hitandsunk.StepStart
	if i > 0 {
		label = hitandsunk.StepRound(round)
	}
	for _, p := range r.Players {
		if l, ok := o.stepLog(p.Key, names[p.ID], label); ok {
			f.Logs = append(f.Logs, l)
		}
	}
	if i > 0 {
		f.Files = []File{jsonFile(fmt.Sprintf("replay.json: turns of round %d", round), turns),
			jsonFile(fmt.Sprintf("replay.json: roundEnds[%d]", i-1), r.Ends[i-1])}
	} else {
		f.Files = []File{jsonFile("replay.json: start", r.Start)}
	}
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

// hitandsunkTurn describes one ship's turn in words, with cells as the
// board labels them; the raw events stay in the round's raw files.
func hitandsunkTurn(names map[int]string, gr Grid, t hitandsunk.ReplayTurn) string {
	s := fmt.Sprintf("%s (ship %d): ", names[t.Ship], t.Ship)
	var parts []string
	if t.Failure != "" {
		parts = append(parts, "waits ("+t.Failure+")")
	}
	for _, e := range t.Events {
		parts = append(parts, eventWords(names, gr, e))
	}
	if t.Aborted {
		parts = append(parts, "the rest of its turn is dropped")
	}
	if len(parts) == 0 {
		parts = append(parts, "does nothing")
	}
	return s + strings.Join(parts, "; ") + "."
}

// facings are the directions of Hit and Sunk's facing codes.
var facings = [...]string{"up", "right", "down", "left"}

// eventWords says what one event of a turn did.
func eventWords(names map[int]string, gr Grid, e hitandsunk.Event) string {
	at := gr.cellName(Cell{e.X, e.Y})
	target := func() string {
		if e.Target == nil {
			return "a ship"
		}
		return fmt.Sprintf("ship %d (%s)", *e.Target, names[*e.Target])
	}
	facing := ""
	if e.Facing != nil && *e.Facing >= 0 && *e.Facing < len(facings) {
		facing = ", facing " + facings[*e.Facing]
	}
	var s string
	switch e.Kind {
	case "fire":
		s = "fires at " + at
	case "hit":
		s = "hits " + target() + " at " + at
		if e.Segment != nil {
			s += fmt.Sprintf(" (hull segment %d)", *e.Segment)
		}
	case "sink":
		s = "sinks " + target()
	case "absorb":
		s = target() + "'s shield absorbs the hit at " + at
	case "dodge":
		s = "misses " + target() + " at " + at + ": it is underwater"
	case "explode":
		s = "a mine explodes at " + at
	case "mine":
		s = "lays a mine at " + at
	case "ram":
		s = "rams at " + at
	case "move":
		s = "moves ahead to " + at + facing
	case "back":
		s = "backs up to " + at + facing
	case "rotate":
		s = "turns at " + at + facing
	case "scan":
		s = "scans around " + at
	case "shield":
		s = "raises its shield"
	case "repair":
		s = "repairs its hull"
		if e.Segment != nil {
			s += fmt.Sprintf(" (segment %d)", *e.Segment)
		}
	case "dive":
		s = "dives"
	case "surface":
		s = "surfaces"
	case "reject":
		return "an action is refused (" + e.Note + ")"
	case "abort":
		return "the rest of its answer is dropped (" + e.Note + ")"
	default:
		s = e.Kind + " at " + at
	}
	if e.Note != "" {
		s += " (" + e.Note + ")"
	}
	return s
}

// hullWords says how much of a hull is whole; the request's hull string
// has a 1 for each whole segment, from the bow.
func hullWords(hull string) string {
	whole := strings.Count(hull, "1")
	return fmt.Sprintf("%d of %d segments whole", whole, len(hull))
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
				out = append(out, Series{Key: strconv.Itoa(s.ID), Name: names[s.ID], Points: make([]int, step), Colour: colourOf(s.ID)})
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
