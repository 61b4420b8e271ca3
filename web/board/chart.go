package board

import (
	"strconv"
	"strings"
)

// Series is one seat's score at every step of a replay.
type Series struct {
	Key    string
	Name   string
	Points []int
	// Colour is the seat's colour on the board (1 to Palette), so its
	// line matches its ships; 0 takes the series' place in the chart.
	Colour int
}

// Chart is the score-over-time chart laid out for an inline SVG: one
// polyline per seat in a fixed viewBox. Scores below zero (Hit and Sunk's
// penalties) go below the zero line.
type Chart struct {
	Width, Height int
	Max, Min      int
	Steps         int
	Lines         []ChartLine
	// Zero is the height of the zero line when a score went below it,
	// else -1.
	Zero int
}

// ChartLine is one seat's line.
type ChartLine struct {
	Name   string
	Class  string
	Points string
	Last   int
}

// Chart geometry in viewBox units.
const (
	chartW   = 400
	chartH   = 120
	chartPad = 4
)

// maxChartLines keeps a thirty-ship free-for-all chart readable: the
// leaders are drawn.
const maxChartLines = 8

// ChartOf lays out series of equal length; it is empty with fewer than two
// steps.
func ChartOf(series []Series) Chart {
	c := Chart{Width: chartW, Height: chartH, Zero: -1}
	for _, s := range series {
		c.Steps = max(c.Steps, len(s.Points))
		for _, p := range s.Points {
			c.Max, c.Min = max(c.Max, p), min(c.Min, p)
		}
	}
	if c.Steps < 2 {
		return Chart{}
	}
	span := max(c.Max-c.Min, 1)
	y := func(p int) int { return chartH - chartPad - (p-c.Min)*(chartH-2*chartPad)/span }
	if c.Min < 0 {
		c.Zero = y(0)
	}
	for k, s := range series {
		if k == maxChartLines {
			break
		}
		var b strings.Builder
		for i, p := range s.Points {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.Itoa(c.X(i)))
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(y(p)))
		}
		last := 0
		if len(s.Points) > 0 {
			last = s.Points[len(s.Points)-1]
		}
		colour := k
		if s.Colour > 0 {
			colour = s.Colour - 1
		}
		c.Lines = append(c.Lines, ChartLine{Name: s.Name, Class: "s" + strconv.Itoa(colour%Palette), Points: b.String(), Last: last})
	}
	return c
}

// X is the horizontal position of step i.
func (c Chart) X(i int) int {
	if c.Steps < 2 {
		return chartPad
	}
	return chartPad + i*(chartW-2*chartPad)/(c.Steps-1)
}
