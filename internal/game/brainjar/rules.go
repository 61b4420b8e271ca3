// Package brainjar hosts the BrainJar battleships rule set (2014): an 8×8
// grid, ships of sizes 2 to 5, bots started fresh for every request with
// compact JSON as their only argument and a JSON reply on stdout. A hit or a
// sink shoots again; an illegal move loses the game.
//
// rules.go is the pure game: no I/O, no clock, no randomness of its own.
package brainjar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Size is the side of the square grid.
const Size = 8

// ShipSizes are the fleet, in the order the original engine checks them.
var shipSizes = [...]int{2, 3, 4, 5}

// Cell is one square: Col is the first character of "XY", Row the second.
type Cell struct {
	Col, Row int
}

// String is the protocol form "XY" (column then row).
func (c Cell) String() string {
	return fmt.Sprintf("%d%d", c.Col, c.Row)
}

func (c Cell) inside() bool {
	return c.Col >= 0 && c.Col < Size && c.Row >= 0 && c.Row < Size
}

// Ship is one placed ship.
type Ship struct {
	Size  int
	Cells []Cell
}

// Fleet is one player's placement, ships in size order.
type Fleet []Ship

// Result is the outcome of one shot; the values are the original result
// digits used in the moves history.
type Result int

// Shot results.
const (
	Miss Result = 1
	Hit  Result = 3
	Sink Result = 4
)

// String names the result for logs and replays.
func (r Result) String() string {
	switch r {
	case Miss:
		return "miss"
	case Hit:
		return "hit"
	case Sink:
		return "sink"
	}
	return "unknown"
}

// ParsePlacement reads a bot's reply to init. It follows the original
// engine: keys "2" to "5" must exist (others are ignored), point must be a
// string whose first two characters are the column and row (a character that
// is not a digit counts as 0, as the engine's `parseInt(...) or 0` did),
// orientation must be exactly "horizontal" or "vertical", and ships may touch
// but not overlap or leave the grid.
func ParsePlacement(data []byte) (Fleet, error) {
	var raw map[string]json.RawMessage
	if err := decodeOne(data, &raw); err != nil {
		return nil, fmt.Errorf("placement is not a JSON object: %w", err)
	}
	if raw == nil {
		return nil, errors.New("placement is not a JSON object")
	}
	var occupied [Size][Size]bool
	fleet := make(Fleet, 0, len(shipSizes))
	for _, size := range shipSizes {
		key := fmt.Sprint(size)
		v, ok := raw[key]
		if !ok {
			return nil, fmt.Errorf("ship %q missing", key)
		}
		var spec struct {
			Point       any `json:"point"`
			Orientation any `json:"orientation"`
		}
		if err := json.Unmarshal(v, &spec); err != nil {
			return nil, fmt.Errorf("ship %q: not an object with point and orientation", key)
		}
		point, ok := spec.Point.(string)
		if !ok {
			return nil, fmt.Errorf("ship %q: point must be a string like \"34\"", key)
		}
		dc, dr := 0, 0
		switch spec.Orientation {
		case "horizontal":
			dc = 1
		case "vertical":
			dr = 1
		default:
			return nil, fmt.Errorf("ship %q: orientation must be \"horizontal\" or \"vertical\"", key)
		}
		start := Cell{Col: coerceDigit(point, 0), Row: coerceDigit(point, 1)}
		ship := Ship{Size: size}
		for i := range size {
			c := Cell{Col: start.Col + i*dc, Row: start.Row + i*dr}
			if !c.inside() {
				return nil, fmt.Errorf("ship %q at %q %s leaves the grid", key, point, spec.Orientation)
			}
			if occupied[c.Col][c.Row] {
				return nil, fmt.Errorf("ship %q overlaps another ship at %s", key, c)
			}
			occupied[c.Col][c.Row] = true
			ship.Cells = append(ship.Cells, c)
		}
		fleet = append(fleet, ship)
	}
	return fleet, nil
}

// coerceDigit reads character i of s as the engine did: a digit is its value,
// anything else (or nothing) is 0.
func coerceDigit(s string, i int) int {
	if i < len(s) && s[i] >= '0' && s[i] <= '9' {
		return int(s[i] - '0')
	}
	return 0
}

// ParseMove reads a bot's reply to move. It is strict: the reply must be an
// object whose "move" is exactly two digits 0–7.
func ParseMove(data []byte) (Cell, error) {
	var reply map[string]json.RawMessage
	if err := decodeOne(data, &reply); err != nil || reply == nil {
		return Cell{}, fmt.Errorf("reply is not a JSON object like {\"move\":\"34\"}")
	}
	v, ok := reply["move"]
	if !ok {
		return Cell{}, errors.New(`reply has no "move"`)
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return Cell{}, fmt.Errorf(`"move" is %s, not a string like "34"`, v)
	}
	if len(s) != 2 || s[0] < '0' || s[0] > '7' || s[1] < '0' || s[1] > '7' {
		return Cell{}, fmt.Errorf("move %q is not two digits 0-7 (column then row)", s)
	}
	return Cell{Col: int(s[0] - '0'), Row: int(s[1] - '0')}, nil
}

// decodeOne decodes exactly one JSON value; surrounding whitespace is
// allowed (as JSON.parse allowed it), any other text is an error.
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if len(bytes.TrimSpace(data[dec.InputOffset():])) != 0 {
		return errors.New("text after the JSON document")
	}
	return nil
}

// grid is one player's waters as the opponent shoots at them.
type grid struct {
	fleet Fleet
	shot  [Size][Size]bool
	hits  [Size][Size]bool
	// sunk holds the ship sizes sunk so far, in the order they sank.
	sunk []int
}

func (g *grid) shipAt(c Cell) int {
	for i, s := range g.fleet {
		for _, sc := range s.Cells {
			if sc == c {
				return i
			}
		}
	}
	return -1
}

func (g *grid) alive() bool {
	for _, s := range g.fleet {
		for _, c := range s.Cells {
			if !g.hits[c.Col][c.Row] {
				return true
			}
		}
	}
	return false
}

// Game is the state of one game between players 0 and 1.
type Game struct {
	// grids[p] is player p's own fleet, shot at by the other player.
	grids   [2]grid
	current int
	moves   []string
	shots   [2]int
	landed  [2]int
}

// NewGame starts a game with both placements and the first shooter.
func NewGame(fleets [2]Fleet, first int) *Game {
	g := &Game{current: first}
	for p := range fleets {
		g.grids[p].fleet = fleets[p]
	}
	return g
}

// Current is the player whose turn it is.
func (g *Game) Current() int { return g.current }

// Winner reports the winner once one side has no ship cell left.
func (g *Game) Winner() (int, bool) {
	for p := range g.grids {
		if !g.grids[p].alive() {
			return 1 - p, true
		}
	}
	return 0, false
}

// ErrShotTwice is returned for a shot at a cell already fired at.
var ErrShotTwice = errors.New("cell already fired at (counts as surrender)")

// Shoot applies the current player's shot. A miss passes the turn; a hit or
// a sink lets the same player shoot again.
func (g *Game) Shoot(c Cell) (Result, error) {
	if !c.inside() {
		return 0, fmt.Errorf("cell %s outside the grid", c)
	}
	target := &g.grids[1-g.current]
	if target.shot[c.Col][c.Row] {
		return 0, fmt.Errorf("%s: %w", c, ErrShotTwice)
	}
	target.shot[c.Col][c.Row] = true
	g.shots[g.current]++
	res := Miss
	if i := target.shipAt(c); i >= 0 {
		target.hits[c.Col][c.Row] = true
		g.landed[g.current]++
		res = Hit
		if shipSunk(target, target.fleet[i]) {
			res = Sink
			target.sunk = append(target.sunk, target.fleet[i].Size)
		}
	}
	g.moves = append(g.moves, fmt.Sprintf("%d%s%d", g.current, c, res))
	if res == Miss {
		g.current = 1 - g.current
	}
	return res, nil
}

func shipSunk(g *grid, s Ship) bool {
	for _, c := range s.Cells {
		if !g.hits[c.Col][c.Row] {
			return false
		}
	}
	return true
}

// MoveRequest is the snapshot sent to a bot for its move, with the fields in
// the order the original engine emitted them.
type MoveRequest struct {
	Hit       []string `json:"hit"`
	Missed    []string `json:"missed"`
	Destroyed []string `json:"destroyed"`
	Moves     []string `json:"moves"`
	Cmd       string   `json:"cmd"`
	You       int      `json:"you"`
}

// Snapshot is what player p knows: its hits and misses on the opponent's
// grid sorted column-major, the sizes it sank as strings, and the shared
// history of both players.
func (g *Game) Snapshot(p int) MoveRequest {
	target := &g.grids[1-p]
	req := MoveRequest{Hit: []string{}, Missed: []string{}, Destroyed: []string{}, Cmd: "move", You: p}
	for col := range Size {
		for row := range Size {
			if !target.shot[col][row] {
				continue
			}
			name := Cell{Col: col, Row: row}.String()
			if target.hits[col][row] {
				req.Hit = append(req.Hit, name)
			} else {
				req.Missed = append(req.Missed, name)
			}
		}
	}
	for _, s := range target.sunk {
		req.Destroyed = append(req.Destroyed, fmt.Sprint(s))
	}
	req.Moves = append([]string{}, g.moves...)
	return req
}

// Moves is the shared history in the protocol's 4-character form.
func (g *Game) Moves() []string { return append([]string{}, g.moves...) }

// Stats returns player p's shots fired and landed, and how many of p's own
// ships are still afloat.
func (g *Game) Stats(p int) (fired, landed, shipsLeft int) {
	own := &g.grids[p]
	return g.shots[p], g.landed[p], len(own.fleet) - len(own.sunk)
}
