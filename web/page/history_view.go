package page

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/broadside/broadside/internal/store"
)

// ClansView is the list of clans with the form to create one.
type ClansView struct {
	Base
	Clans []store.Clan
	// MyClan is the visitor's clan, nil when they are in none.
	MyClan      *store.Clan
	Name        string
	Description string
	Error       string
}

// ClanView is one clan's page: members, their bots, their results.
type ClanView struct {
	Base
	Clan    *store.Clan
	Members []store.ClanMember
	Bots    []store.ClanBot
	History []store.HistoryRow
	Pager   Pager
	// MyRole is the visitor's role in this clan, empty for others.
	MyRole string
	// InOtherClan is set when the visitor is a member of another clan.
	InOtherClan bool
	// Key is the join key from an invite link, filled into the join form.
	Key string
	// InviteURL is the invite link, shown to members only.
	InviteURL string
	Error     string
	Notice    string
}

// ChallengesView is a user's challenges, received and sent.
type ChallengesView struct {
	Base
	Received   []store.Challenge
	Sent       []store.Challenge
	AutoAccept bool
	// OpenChallenges is the platform's policy: any bot, or clans only.
	OpenChallenges bool
	// Organiser shows the form that changes the policy.
	Organiser bool
	Error     string
	Notice    string
}

// ChallengeView is one challenge.
type ChallengeView struct {
	Base
	Challenge *store.Challenge
	Error     string
}

// BotHistoryView is the full match history of a bot.
type BotHistoryView struct {
	Base
	Bot     *store.BotDetail
	History []store.HistoryRow
	Chart   Chart
	Pager   Pager
}

// HeadToHeadView compares two bots by their matches against each other.
type HeadToHeadView struct {
	Base
	A, B    *store.BotDetail
	Summary *store.HeadToHead
	Matches []store.MatchRow
}

// Chart is a rating-history line chart laid out for an inline SVG.
type Chart struct {
	Width, Height int
	// Line is the polyline of ratings; Band the polygon of rating ± 2 deviations.
	Line, Band string
	// YTicks label the rating axis; XFirst and XLast the time axis.
	YTicks        []ChartTick
	XFirst, XLast string
	Points        int
	// Versions mark where a new bot version played its first rated match.
	Versions []ChartMark
	// Summary describes the chart in words for screen readers.
	Summary string
}

// ChartMark is a labelled vertical line at X.
type ChartMark struct {
	X     float64
	Label string
}

// ChartTick is one labelled gridline.
type ChartTick struct {
	Y     float64
	Label string
}

// Chart geometry: the plot area sits inside margins for the labels.
const (
	chartW, chartH                = 640, 220
	chartLeft, chartRight         = 48, 12
	chartTop, chartBottom         = 12, 28
	chartTicks                    = 5
	chartMinSpan          float64 = 50
)

// RatingChart lays out a bot's rating history. It needs two points (the
// start and one rated match) to draw anything.
func RatingChart(points []store.RatingPoint) Chart {
	c := Chart{Width: chartW, Height: chartH, Points: len(points)}
	if len(points) < 2 {
		return c
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range points {
		lo = min(lo, p.Rating-2*p.Deviation)
		hi = max(hi, p.Rating+2*p.Deviation)
	}
	if hi-lo < chartMinSpan {
		mid := (hi + lo) / 2
		lo, hi = mid-chartMinSpan/2, mid+chartMinSpan/2
	}
	plotW := float64(chartW - chartLeft - chartRight)
	plotH := float64(chartH - chartTop - chartBottom)
	x := func(i int) float64 { return chartLeft + plotW*float64(i)/float64(len(points)-1) }
	y := func(r float64) float64 { return chartTop + plotH*(hi-r)/(hi-lo) }
	var line, upper, lower []string
	for i, p := range points {
		line = append(line, xy(x(i), y(p.Rating)))
		upper = append(upper, xy(x(i), y(p.Rating+2*p.Deviation)))
		lower = append([]string{xy(x(i), y(p.Rating-2*p.Deviation))}, lower...)
	}
	for i := 1; i < len(points); i++ {
		if points[i].Version != points[i-1].Version {
			c.Versions = append(c.Versions, ChartMark{X: x(i), Label: "v" + itoa(points[i].Version)})
		}
	}
	c.Line = strings.Join(line, " ")
	c.Band = strings.Join(append(upper, lower...), " ")
	for i := range chartTicks {
		r := lo + (hi-lo)*float64(i)/float64(chartTicks-1)
		c.YTicks = append(c.YTicks, ChartTick{Y: y(r), Label: strconv.FormatFloat(math.Round(r), 'f', 0, 64)})
	}
	first, last := points[0], points[len(points)-1]
	c.XFirst, c.XLast = at(first.At), at(last.At)
	c.Summary = fmt.Sprintf("Rating over %d rated matches, from %.0f to %.0f (lowest %.0f, highest %.0f).",
		len(points)-1, first.Rating, last.Rating, minRating(points), maxRating(points))
	return c
}

func xy(x, y float64) string { return fmt.Sprintf("%.1f,%.1f", x, y) }

func minRating(ps []store.RatingPoint) float64 {
	m := math.Inf(1)
	for _, p := range ps {
		m = min(m, p.Rating)
	}
	return m
}

func maxRating(ps []store.RatingPoint) float64 {
	m := math.Inf(-1)
	for _, p := range ps {
		m = max(m, p.Rating)
	}
	return m
}

// Chart coordinates for templates.
func (c Chart) PlotLeft() string  { return itoa(chartLeft) }
func (c Chart) PlotRight() string { return itoa(chartW - chartRight) }
func (c Chart) PlotBottom() string {
	return itoa(chartH - chartBottom)
}
func (c Chart) LabelY() string  { return itoa(chartH - 8) }
func (c Chart) PlotTop() string { return itoa(chartTop) }

// chartTopF is the plot's top edge, for labels placed below it.
const chartTopF = float64(chartTop)

func fmtY(y float64) string { return strconv.FormatFloat(y, 'f', 1, 64) }

// signed shows a rating change with its sign: +12, −7, ±0.
func signed(f float64) string {
	r := math.Round(f)
	switch {
	case r > 0:
		return "+" + strconv.FormatFloat(r, 'f', 0, 64)
	case r < 0:
		return "−" + strconv.FormatFloat(-r, 'f', 0, 64)
	}
	return "±0"
}

func headToHeadURL(a, b int64) string { return botURL(a) + "/vs/" + itoa(b) }

func clanURL(id int64) string { return "/clans/" + itoa(id) }

func challengeURL(id int64) string { return "/challenges/" + itoa(id) }

// outcomeText is a history row's result from the bot's side: win, loss
// or draw in a duel, the placing ("2nd of 4") in a free-for-all, where a
// bot that did not win may still have beaten most of the field.
func outcomeText(h store.HistoryRow) string {
	if h.Status != "finished" {
		return h.Status
	}
	if h.Others > 0 && h.Rank > 0 {
		return placing(h.Rank, h.Others+2)
	}
	if h.Outcome == "" {
		return "—"
	}
	return h.Outcome
}

// outcomeClass colours a history row's result: a win good, a loss bad; a
// free-for-all placing other than first is neither.
func outcomeClass(h store.HistoryRow) string {
	switch {
	case h.Others > 0 && h.Rank > 0 && h.Rank == 1:
		return "ok"
	case h.Others > 0 && h.Rank > 0:
		return ""
	case h.Outcome == "win":
		return "ok"
	case h.Outcome == "loss":
		return "failed"
	}
	return ""
}

// placing is a place among n players: "1st of 4", "2nd of 4".
func placing(rank, n int) string {
	return ordinal(rank) + " of " + itoa(n)
}
