package board

import (
	"fmt"
	"strconv"
	"strings"
)

// u is one cell in SVG units; the first row and column hold the labels.
const u = 20

func itoa(n int) string { return strconv.Itoa(n) }

// px is the SVG position of a cell's left (or top) edge.
func px(i int) int { return (i + 1) * u }

func (g Grid) viewBox() string {
	return fmt.Sprintf("0 0 %d %d", px(g.Cols)+2, px(g.Rows)+2)
}

// lines is the grid's cell borders as one path.
func (g Grid) lines() string {
	var b strings.Builder
	for c := 0; c <= g.Cols; c++ {
		fmt.Fprintf(&b, "M%d %dV%d", px(c), px(0), px(g.Rows))
	}
	for r := 0; r <= g.Rows; r++ {
		fmt.Fprintf(&b, "M%d %dH%d", px(0), px(r), px(g.Cols))
	}
	return b.String()
}

func (c Cell) key() string { return itoa(c.X) + "," + itoa(c.Y) }

// hull is the outline of a ship's cells, inset from the grid lines.
func (s Ship) hull() (x, y, w, h int) {
	if len(s.Cells) == 0 {
		return 0, 0, 0, 0
	}
	minX, minY, maxX, maxY := s.Cells[0].X, s.Cells[0].Y, s.Cells[0].X, s.Cells[0].Y
	for _, c := range s.Cells {
		minX, maxX = min(minX, c.X), max(maxX, c.X)
		minY, maxY = min(minY, c.Y), max(maxY, c.Y)
	}
	return px(minX) + 3, px(minY) + 3, (maxX-minX+1)*u - 6, (maxY-minY+1)*u - 6
}

// bow is the arrow on the bow of a ship with a heading, pointing away
// from the next cell.
func (s Ship) bow() string {
	if !s.Pointed || len(s.Cells) == 0 {
		return ""
	}
	b := s.Cells[0]
	dx, dy := 0, -1
	if len(s.Cells) > 1 {
		dx, dy = b.X-s.Cells[1].X, b.Y-s.Cells[1].Y
	}
	cx, cy := px(b.X)+u/2, px(b.Y)+u/2
	tipX, tipY := cx+dx*9, cy+dy*9
	// The base is perpendicular to the heading.
	return fmt.Sprintf("M%d %dL%d %dL%d %dZ", tipX, tipY, cx-dy*6-dx*2, cy+dx*6-dy*2, cx+dy*6-dx*2, cy-dx*6-dy*2)
}

func (s Ship) title() string {
	switch {
	case s.Sunk:
		return s.Name + ", sunk"
	case len(s.Cells) > 0:
		return fmt.Sprintf("%s, %d of %d cells hit", s.Name, s.Damage(), len(s.Cells))
	}
	return s.Name
}

func (s Ship) class() string {
	c := "ship"
	if s.Sunk {
		c += " sunk"
	}
	if s.Faded {
		c += " faded"
	}
	if s.Colour > 0 {
		c += " p" + itoa(s.Colour)
	}
	return c
}

// legendShip is a ship swatch for the legend: a bar over one cell.
const legendShip = "M2 5h16v10h-16Z"

// colourClass is a player's swatch class (the chart's line colours,
// s0…s7), empty for none.
func colourClass(c int) string {
	if c <= 0 {
		return ""
	}
	return "swatch s" + itoa(c-1)
}

// markPath draws a mark in its cell; each kind has its own shape.
func markPath(m Mark) string {
	x, y := px(m.X), px(m.Y)
	cx, cy := x+u/2, y+u/2
	switch m.Kind {
	case MarkHit:
		return fmt.Sprintf("M%d %dL%d %dM%d %dL%d %d", x+4, y+4, x+u-4, y+u-4, x+u-4, y+4, x+4, y+u-4)
	case MarkMiss:
		return fmt.Sprintf("M%d %dm-3 0a3 3 0 1 0 6 0a3 3 0 1 0-6 0", cx, cy)
	case MarkAbsorbed:
		return fmt.Sprintf("M%d %dm-7 0a7 7 0 1 0 14 0a7 7 0 1 0-14 0", cx, cy)
	case MarkMine:
		return fmt.Sprintf("M%d %dL%d %dL%d %dL%d %dZ", cx, cy-7, cx+7, cy, cx, cy+7, cx-7, cy)
	case MarkWreck:
		return fmt.Sprintf("M%d %dh%dv%dh-%dZM%d %dL%d %d", x+3, y+3, u-6, u-6, u-6, x+3, y+u-3, x+u-3, y+3)
	case MarkShot:
		return fmt.Sprintf("M%d %dm-8 0a8 8 0 1 0 16 0a8 8 0 1 0-16 0M%d %dv-10M%d %dv10", cx, cy, cx, cy-2, cx, cy+2)
	}
	return ""
}

// areaPath is a set of cells as one path of squares.
func areaPath(a Area) string {
	var b strings.Builder
	for _, c := range a.Cells {
		fmt.Fprintf(&b, "M%d %dh%dv%dh-%dZ", px(c.X)+1, px(c.Y)+1, u-2, u-2, u-2)
	}
	return b.String()
}

func (a Area) cellList() string {
	keys := make([]string, len(a.Cells))
	for i, c := range a.Cells {
		keys[i] = c.key()
	}
	return strings.Join(keys, " ")
}

// Nav builds a viewer's links: Page is the page's path, Fragments the
// prefix of a step's fragment (the step number is appended).
type Nav struct {
	Page      string
	Fragments string
	// Events is the server-sent event stream of a running match, empty
	// when there is none.
	Events string
	// Live says the match is being played: the page follows new rounds.
	Live bool
}

// StepURL is the shareable link of step i.
func (n Nav) StepURL(i int) string { return n.Page + "?round=" + itoa(i) + "#viewer" }

func gridID(f *Frame, k int) string { return "g" + itoa(f.Index) + "-" + itoa(k) }

func unit(f *Frame) string {
	if f.Unit == "" {
		return "round"
	}
	return f.Unit
}

func (c Chart) cursor(i int) string { return itoa(c.X(i)) }

func (c Chart) alt() string {
	var parts []string
	for _, l := range c.Lines {
		parts = append(parts, fmt.Sprintf("%s ends with %s", l.Name, signed(l.Last)))
	}
	return fmt.Sprintf("Score over %d steps: %s.", c.Steps, strings.Join(parts, ", "))
}

// signed writes a score with a true minus sign, as the portal's pages do.
func signed(n int) string {
	if n < 0 {
		return "−" + itoa(-n)
	}
	return itoa(n)
}
