package board

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// roundDir matches an Entelect round folder ("Phase 2 - Round 14").
var roundDir = regexp.MustCompile(`^Phase (\d+) - Round (\d+)$`)

type entelectRound struct {
	dir          string
	phase, round int
}

// entelectRounds lists the round folders under root in play order.
func entelectRounds(fsys fs.FS, root string) ([]entelectRound, error) {
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read replay folder: %w", err)
	}
	var out []entelectRound
	for _, e := range entries {
		m := roundDir.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		p, _ := strconv.Atoi(m[1])
		r, _ := strconv.Atoi(m[2])
		out = append(out, entelectRound{dir: path.Join(root, e.Name()), phase: p, round: r})
	}
	slices.SortFunc(out, func(a, b entelectRound) int {
		return cmp.Or(cmp.Compare(a.phase, b.phase), cmp.Compare(a.round, b.round))
	})
	return out, nil
}

// entelectGame is an Entelect 2017 replay folder as the original engine (any
// release) or ours wrote it.
type entelectGame struct {
	fsys   fs.FS
	rounds []entelectRound
}

// The parts of state.json the boards need. Release 1.0 wrote Damaged and
// Missed where later ones write Hit.
type eState struct {
	Round        int
	Phase        int
	MapDimension int
	Player1Map   *eMap
	Player2Map   *eMap
	PlayerMap    *eMap
}

type eMap struct {
	Cells []eCell
	Owner eOwner
}

type eCell struct {
	Occupied, Hit, Damaged, Missed bool
	Shielded, ShieldHit            bool
	X, Y                           int
	// OccupiedBy names the ship on the cell (release 1.0, whose ships
	// list no cells).
	OccupiedBy *struct{ ShipType string }
}

type eOwner struct {
	Name                     string
	Key                      string
	Points                   int
	Energy                   int
	Killed                   bool
	ShotsFired, ShotsHit     int
	ShipsRemaining           int
	FailedFirstPhaseCommands int
	Ships                    []eShip
	Shield                   *struct {
		CurrentCharges int
		Active         bool
		CurrentRadius  int
	}
}

type eShip struct {
	ShipType  string
	Destroyed bool
	Placed    bool
	// Cells are null before placement.
	Cells []*eCell
}

type eMove struct {
	SuccessfulMove bool
	CommandIssued  *string
	CenterPoint    string
}

type eCommands struct {
	Player1Move, Player2Move *eMove
}

var shipLetters = map[string]string{
	"Battleship": "B", "Carrier": "C", "Cruiser": "R", "Destroyer": "D", "Submarine": "S",
}

func (e *entelectGame) count() int { return len(e.rounds) }

func (e *entelectGame) read(dir, name string) ([]byte, error) {
	return readCapped(e.fsys, path.Join(dir, name), maxRoundFile)
}

func (e *entelectGame) frame(i int, o Options) (*Frame, error) {
	rd := e.rounds[i]
	// Round numbers are the engine's own, as its folders name them; the
	// last folder is the final state, the round count of the match's page.
	// The engine's round 0 is the placement before the first round: the
	// page's "96 rounds" count from round 1, so it is not "Round 0 of 96".
	last := e.rounds[len(e.rounds)-1].round
	name := fmt.Sprintf("Round %d of %d", rd.round, last)
	if o.inProgress {
		name = fmt.Sprintf("Round %d", rd.round)
	}
	switch {
	case rd.round == 0 && o.inProgress:
		name = "Placement, before round 1"
	case rd.round == 0:
		name = fmt.Sprintf("Placement, before round 1 of %d", last)
	case rd.phase == 1:
		name += ": placement"
	}
	f := &Frame{Index: i, Count: len(e.rounds), Unit: "round", Name: name}
	maps, size, err := e.maps(rd.dir)
	if err != nil {
		return nil, err
	}
	if maps[0] == nil && maps[1] == nil {
		f.Note = "This round folder holds no state.json: the round was not completed. Its files are below."
	} else {
		f.Note = "Each map after the shots of the round before; the opponent's weapon is outlined."
	}
	var moves [2]*eMove
	if data, err := e.read(rd.dir, "roundCommand.json"); err == nil && rd.round > 0 {
		var c eCommands
		if json.Unmarshal(data, &c) == nil {
			moves = [2]*eMove{c.Player1Move, c.Player2Move}
		}
	}
	var reasons [2]string
	if i > 0 {
		reasons = e.failures(e.rounds[i-1].dir, maps)
	}
	for p, m := range maps {
		key := string(rune('A' + p))
		if m == nil {
			continue
		}
		if m.Owner.Key != "" {
			key = m.Owner.Key
		}
		name := o.name(key, m.Owner.Name)
		g := entelectGrid(name, size, m)
		if mv := moves[1-p]; mv != nil && mv.SuccessfulMove && mv.CommandIssued != nil {
			if cells := weaponCells(*mv.CommandIssued, mv.CenterPoint, size); len(cells) > 0 {
				g.Areas = append(g.Areas, Area{Kind: AreaWeapon, Cells: cells})
			}
		}
		f.Grids = append(f.Grids, g)
		f.Players = append(f.Players, entelectPlayer(key, name, m.Owner, moves[p], reasons[p]))
	}
	f.Files, f.Logs = e.files(rd.dir, o, f.Players)
	return f, nil
}

// maps reads both players' full maps: from the root state.json, or, in a
// round cut short, from each player's own state.json.
func (e *entelectGame) maps(dir string) ([2]*eMap, int, error) {
	var out [2]*eMap
	data, err := e.read(dir, "state.json")
	if err == nil {
		var s eState
		if err := json.Unmarshal(data, &s); err != nil {
			return out, 0, fmt.Errorf("%s/state.json: %w", path.Base(dir), err)
		}
		return [2]*eMap{s.Player1Map, s.Player2Map}, s.MapDimension, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return out, 0, err
	}
	size := 0
	for p, key := range []string{"A", "B"} {
		data, err := e.read(path.Join(dir, key), "state.json")
		if err != nil {
			continue
		}
		var s eState
		if json.Unmarshal(data, &s) == nil && s.PlayerMap != nil {
			out[p], size = s.PlayerMap, s.MapDimension
		}
	}
	return out, size, nil
}

// failLine is the engine log's line for a command that failed.
var failLine = regexp.MustCompile(`Command \S+ of player (.*) failed: (.*)$`)

// failures reads why each player's command failed from the engine log of
// the round it was issued in.
func (e *entelectGame) failures(dir string, maps [2]*eMap) [2]string {
	var out [2]string
	data, err := e.read(dir, "engine.log")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		m := failLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for p, mp := range maps {
			if mp != nil && mp.Owner.Name == m[1] && out[p] == "" {
				out[p] = m[2]
				break
			}
		}
	}
	return out
}

// files lists the round's public files, named as in the replay folder,
// and the logs the viewer may read, named for their bots.
func (e *entelectGame) files(dir string, o Options, players []Player) (files, logs []File) {
	folder := path.Base(dir)
	add := func(to *[]File, rel, name string) {
		if data, err := readHead(e.fsys, path.Join(dir, rel), maxShownText+1); err == nil {
			*to = append(*to, File{Name: name, Text: shownText(data)})
		}
	}
	for _, n := range []string{"A - map.txt", "B - map.txt", "roundCommand.json", "roundInfo.json", "engine.log"} {
		add(&files, n, folder+"/"+n)
	}
	for _, key := range []string{"A", "B"} {
		add(&files, key+"/place.txt", folder+"/"+key+"/place.txt")
		add(&files, key+"/command.txt", folder+"/"+key+"/command.txt")
		if o.showLog(key) {
			who := key
			for _, p := range players {
				if p.Key == key {
					who = p.Name
				}
			}
			n := len(logs)
			add(&logs, key+"/log.txt", who+" ("+folder+"/"+key+"/log.txt)")
			if len(logs) == n && len(players) > 0 {
				// The final state's folder: the bot did not run.
				logs = append(logs, File{Name: who, Text: "Nothing of your bot in this round: it was not run."})
			}
		}
	}
	return files, logs
}

// entelectGrid draws one player's map: north (+y) is up.
func entelectGrid(name string, size int, m *eMap) Grid {
	if size <= 0 {
		size = 10
	}
	at := func(c eCell) Cell { return Cell{X: c.X, Y: size - 1 - c.Y} }
	g := Grid{Title: name + "'s map", Cols: size, Rows: size, ColLabels: numbers(size), RowLabels: numbers(size)}
	slices.Reverse(g.RowLabels)
	for _, s := range m.Owner.Ships {
		cells := s.Cells
		if len(cells) == 0 && s.Placed {
			for _, c := range m.Cells {
				if c.OccupiedBy != nil && c.OccupiedBy.ShipType == s.ShipType {
					cells = append(cells, &c)
				}
			}
		}
		sh := Ship{Name: s.ShipType, Letter: shipLetters[s.ShipType], Sunk: s.Destroyed}
		for _, c := range cells {
			if c != nil {
				sh.Cells = append(sh.Cells, at(*c))
				sh.Hit = append(sh.Hit, c.Hit || c.Damaged)
			}
		}
		if len(sh.Cells) > 0 {
			g.Ships = append(g.Ships, sh)
		}
	}
	var shield []Cell
	for _, c := range m.Cells {
		switch {
		case c.ShieldHit:
			g.Marks = append(g.Marks, Mark{at(c), MarkAbsorbed})
		case c.Missed || (c.Hit && !c.Occupied):
			g.Marks = append(g.Marks, Mark{at(c), MarkMiss})
		case c.Damaged || c.Hit:
			g.Marks = append(g.Marks, Mark{at(c), MarkHit})
		}
		if c.Shielded {
			shield = append(shield, at(c))
		}
	}
	if len(shield) > 0 {
		g.Areas = append(g.Areas, Area{Kind: AreaShield, Cells: shield})
	}
	return g
}

func entelectPlayer(key, name string, ow eOwner, mv *eMove, reason string) Player {
	pl := Player{Key: key, Name: name, Stats: []Stat{
		{"Points", strconv.Itoa(ow.Points)},
		{"Energy", strconv.Itoa(ow.Energy)},
		{"Ships left", strconv.Itoa(ow.ShipsRemaining)},
		{"Shots (hit)", fmt.Sprintf("%d (%d)", ow.ShotsFired, ow.ShotsHit)},
	}}
	if sh := ow.Shield; sh != nil {
		state := fmt.Sprintf("down, %d charges", sh.CurrentCharges)
		if sh.Active {
			state = fmt.Sprintf("up, radius %d, %d charges", sh.CurrentRadius, sh.CurrentCharges)
		}
		pl.Stats = append(pl.Stats, Stat{"Shield", state})
	}
	if ow.FailedFirstPhaseCommands > 0 {
		pl.Stats = append(pl.Stats, Stat{"Failed placements", strconv.Itoa(ow.FailedFirstPhaseCommands)})
	}
	if ow.Killed {
		pl.Stats = append(pl.Stats, Stat{"Status", "killed"})
	}
	if mv == nil || mv.CommandIssued == nil {
		return pl
	}
	cmd := *mv.CommandIssued
	switch {
	case cmd == "DoNothing":
		pl.Command, pl.Verdict = "Do nothing", "did nothing"
	case cmd == "PlaceShip":
		pl.Command = "Place ships"
	default:
		pl.Command = commandWords(cmd) + " at (" + mv.CenterPoint + ")"
	}
	if pl.Verdict == "" {
		pl.Verdict = "succeeded"
		if !mv.SuccessfulMove {
			pl.Failed = true
			pl.Verdict = "failed"
			if reason != "" {
				pl.Verdict = "failed because " + reason
			}
		}
	}
	return pl
}

// commandNames say the engine's commands in words.
var commandNames = map[string]string{
	"FireSingleShot":           "Single shot",
	"FireDoubleShotVertical":   "Double shot, vertical",
	"FireDoubleShotHorizontal": "Double shot, horizontal",
	"FireCornerShot":           "Corner shot",
	"FireCrossShotDiagonal":    "Diagonal cross shot",
	"FireCrossShotNormal":      "Cross shot",
	"FireSeekerMissile":        "Seeker missile",
	"PlaceShield":              "Shield",
}

// commandWords says a command in words, the engine's name when it has
// none (the raw line stays in the round's files).
func commandWords(cmd string) string {
	if w, ok := commandNames[cmd]; ok {
		return w
	}
	if strings.HasPrefix(cmd, "FireSeekerMiss") {
		return "Seeker missile"
	}
	return cmd
}

// weaponCells are the cells a fire command covered, in display cells.
func weaponCells(issued, center string, size int) []Cell {
	var x, y int
	if _, err := fmt.Sscanf(center, "%d, %d", &x, &y); err != nil {
		return nil
	}
	var d [][2]int
	switch {
	case issued == "FireSingleShot":
		d = [][2]int{{0, 0}}
	case issued == "FireDoubleShotVertical":
		d = [][2]int{{0, -1}, {0, 1}}
	case issued == "FireDoubleShotHorizontal":
		d = [][2]int{{-1, 0}, {1, 0}}
	case issued == "FireCornerShot":
		d = [][2]int{{-1, -1}, {-1, 1}, {1, -1}, {1, 1}}
	case issued == "FireCrossShotDiagonal":
		d = [][2]int{{0, 0}, {-1, -1}, {-1, 1}, {1, -1}, {1, 1}}
	case issued == "FireCrossShotNormal":
		d = [][2]int{{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}}
	case strings.HasPrefix(issued, "FireSeekerMiss"):
		// The missile searched every cell within distance 2.
		for dx := -2; dx <= 2; dx++ {
			for dy := -2; dy <= 2; dy++ {
				if abs(dx)+abs(dy) <= 2 || (abs(dx) == 1 && abs(dy) == 1) {
					d = append(d, [2]int{dx, dy})
				}
			}
		}
	}
	var out []Cell
	for _, o := range d {
		cx, cy := x+o[0], y+o[1]
		if cx >= 0 && cx < size && cy >= 0 && cy < size {
			out = append(out, Cell{X: cx, Y: size - 1 - cy})
		}
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// pointsLine finds a map.txt's "Points: N" (the player's own, first).
var pointsLine = regexp.MustCompile(`(?m)^Points: (-?\d+)`)

// scores reads each player's points per round from the rounds' map.txt,
// which is far smaller than state.json.
func (e *entelectGame) scores(o Options) []Series {
	out := []Series{{Key: "A", Name: o.name("A", "A")}, {Key: "B", Name: o.name("B", "B")}}
	for _, rd := range e.rounds {
		for p, key := range []string{"A", "B"} {
			v := 0
			if n := len(out[p].Points); n > 0 {
				v = out[p].Points[n-1]
			}
			if data, err := e.read(rd.dir, key+" - map.txt"); err == nil {
				if m := pointsLine.FindSubmatch(data); m != nil {
					v, _ = strconv.Atoi(string(m[1]))
				}
			}
			out[p].Points = append(out[p].Points, v)
		}
	}
	return out
}
