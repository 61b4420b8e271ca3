// Package board turns one round of a stored replay into SVG boards: both
// Entelect maps, a BrainJar or In Deep Ship game, the Hit and Sunk
// free-for-all. The portal's match page and the local `battleship view`
// share it, so a replay looks the same wherever it is watched.
package board

import (
	"fmt"
	"strconv"
	"strings"
)

// Frame is one step of a replay, ready to draw.
type Frame struct {
	Game  string
	Index int
	Count int
	// Unit names a step ("round", "shot", "turn").
	Unit string
	// Name is the step's title in the game's own unit, the same the
	// match's page counts in ("Round 14 of 47", "Shot 12 of 73",
	// "Game 2 of 3, turn 40 of 120"); the stepper shows it too.
	Name string
	// Note says what the boards show, in a sentence.
	Note    string
	Grids   []Grid
	Players []Player
	// Events is what happened in this step, in order.
	Events []string
	// Files are the step's raw public files; Logs the bot logs the viewer
	// may read (its own bots'), each cut to the lines of this step.
	Files []File
	Logs  []File
}

// Palette is how many player colours the boards and the chart use
// (classes p1…p8 and s0…s7); further players share them.
const Palette = 8

// colourOf is the colour (1 to Palette) of the player numbered n from 0.
func colourOf(n int) int { return n%Palette + 1 }

// Player is one seat's panel beside the board.
type Player struct {
	Key  string
	Name string
	// Colour is the player's colour (1 to Palette) where the board draws
	// several players' ships together; 0 for none.
	Colour int
	Stats  []Stat
	// Command is what the seat did, Verdict what the engine made of it.
	Command string
	Verdict string
	Failed  bool
}

// Stat is one labelled figure of a player's panel.
type Stat struct{ Label, Value string }

// File is a raw text file of the replay.
type File struct{ Name, Text string }

// Grid is one drawn board. Coordinates are display cells: column from the
// left, row from the top.
type Grid struct {
	Title     string
	Cols      int
	Rows      int
	ColLabels []string
	RowLabels []string
	Ships     []Ship
	Marks     []Mark
	Areas     []Area
	// Alt describes the board in words for those who cannot see it.
	Alt string
}

// Cell is a display cell.
type Cell struct{ X, Y int }

// Ship is a ship's cells from bow to stern, with each cell's damage.
type Ship struct {
	Name string
	// Letter is drawn on the bow.
	Letter string
	Cells  []Cell
	Hit    []bool
	Sunk   bool
	// Pointed draws the bow as an arrow (ships with a heading).
	Pointed bool
	// Faded draws a ship that is hidden from the other player (submerged).
	Faded bool
	// Colour is its player's colour (see Player.Colour); 0 for none.
	Colour int
}

// Damage counts the ship's hit cells.
func (s Ship) Damage() int {
	n := 0
	for _, h := range s.Hit {
		if h {
			n++
		}
	}
	return n
}

// MarkKind is what a single-cell mark means.
type MarkKind string

// Marks drawn on cells. Each has its own shape, so colour is never the only
// cue.
const (
	MarkHit      MarkKind = "hit"      // a cross
	MarkMiss     MarkKind = "miss"     // a small dot
	MarkAbsorbed MarkKind = "absorbed" // a ring: a shot the shield took
	MarkMine     MarkKind = "mine"     // a diamond
	MarkWreck    MarkKind = "wreck"    // a hatched square
	MarkShot     MarkKind = "shot"     // a target: this step's shot
)

// Mark is a mark on one cell.
type Mark struct {
	Cell
	Kind MarkKind
}

// AreaKind is what a group of cells means.
type AreaKind string

// Areas drawn over cells.
const (
	AreaShield AreaKind = "shield" // dashed outline
	AreaWeapon AreaKind = "weapon" // cells a special weapon covered this step
	AreaScan   AreaKind = "scan"
)

// Area is a set of cells drawn together.
type Area struct {
	Kind  AreaKind
	Cells []Cell
}

// numbers labels 0..n-1.
func numbers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

// letters labels A, B, C, ...
func letters(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('A' + i))
	}
	return out
}

// markCount counts a grid's marks of a kind.
func (g Grid) markCount(k MarkKind) int {
	n := 0
	for _, m := range g.Marks {
		if m.Kind == k {
			n++
		}
	}
	return n
}

// cellName names a display cell with the grid's labels.
func (g Grid) cellName(c Cell) string {
	col, row := strconv.Itoa(c.X), strconv.Itoa(c.Y)
	if c.X >= 0 && c.X < len(g.ColLabels) {
		col = g.ColLabels[c.X]
	}
	if c.Y >= 0 && c.Y < len(g.RowLabels) {
		row = g.RowLabels[c.Y]
	}
	return "(" + col + "," + row + ")"
}

// describe writes the grid's text alternative from what it holds, unless
// the rule set wrote one.
func (g *Grid) describe() {
	if g.Alt != "" {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d by %d cells.", g.Title, g.Cols, g.Rows)
	for _, s := range g.Ships {
		state := fmt.Sprintf("%d of %d cells hit", s.Damage(), len(s.Cells))
		if s.Sunk {
			state = "sunk"
		}
		if len(s.Cells) > 0 {
			fmt.Fprintf(&b, " %s from %s to %s, %s.", s.Name, g.cellName(s.Cells[0]), g.cellName(s.Cells[len(s.Cells)-1]), state)
		}
	}
	fmt.Fprintf(&b, " %d hits, %d misses", g.markCount(MarkHit), g.markCount(MarkMiss))
	if n := g.markCount(MarkAbsorbed); n > 0 {
		fmt.Fprintf(&b, ", %d shots absorbed by a shield", n)
	}
	if n := g.markCount(MarkMine); n > 0 {
		fmt.Fprintf(&b, ", %d mines", n)
	}
	b.WriteString(".")
	for _, a := range g.Areas {
		fmt.Fprintf(&b, " %s over %d cells.", areaWords[a.Kind], len(a.Cells))
	}
	g.Alt = b.String()
}

var areaWords = map[AreaKind]string{
	AreaShield: "A shield",
	AreaWeapon: "This step's weapon",
	AreaScan:   "A scan",
}

// legendItem is one entry of a board's legend: a ship, a mark or an
// area, and what it means.
type legendItem struct {
	// ship is the class of a ship swatch ("ship", "ship sunk").
	ship  string
	mark  MarkKind
	area  AreaKind
	label string
}
