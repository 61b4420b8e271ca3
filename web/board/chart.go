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
}

// Chart is the score-over-time chart laid out for an inline SVG: one
// polyline per seat in a fixed viewBox.
type Chart struct {
	Width, Height int
	Max           int
	Steps         int
	Lines         []ChartLine
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
	c := Chart{Width: chartW, Height: chartH}
	for _, s := range series {
		c.Steps = max(c.Steps, len(s.Points))
		for _, p := range s.Points {
			c.Max = max(c.Max, p)
		}
	}
	if c.Steps < 2 {
		return Chart{}
	}
	top := max(c.Max, 1)
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
			b.WriteString(strconv.Itoa(chartH - chartPad - p*(chartH-2*chartPad)/top))
		}
		last := 0
		if len(s.Points) > 0 {
			last = s.Points[len(s.Points)-1]
		}
		c.Lines = append(c.Lines, ChartLine{Name: s.Name, Class: "s" + strconv.Itoa(k), Points: b.String(), Last: last})
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
