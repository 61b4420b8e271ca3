package page

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
)

func TestRatingChart(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pts := func(ratings ...float64) []store.RatingPoint {
		var out []store.RatingPoint
		for i, r := range ratings {
			out = append(out, store.RatingPoint{MatchID: int64(i), At: t0.Add(time.Duration(i) * time.Hour), Rating: r, Deviation: 10})
		}
		return out
	}
	cases := []struct {
		name   string
		points []store.RatingPoint
		lines  int // points on the polyline; 0 means nothing drawn
	}{
		{"no history draws nothing", nil, 0},
		{"the start alone draws nothing", pts(1500), 0},
		{"a flat history still has a scale", pts(1500, 1500, 1500), 3},
		{"a rising history", pts(1500, 1600, 1700, 1650), 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch := RatingChart(c.points)
			if got := len(strings.Fields(ch.Line)); got != c.lines {
				t.Fatalf("%d points on the line, want %d", got, c.lines)
			}
			for _, p := range strings.Fields(ch.Line + " " + ch.Band) {
				x, y, _ := strings.Cut(p, ",")
				fx, _ := strconv.ParseFloat(x, 64)
				fy, _ := strconv.ParseFloat(y, 64)
				if fx < chartLeft || fx > chartW-chartRight || fy < chartTop || fy > chartH-chartBottom {
					t.Fatalf("point %s is outside the plot", p)
				}
			}
		})
	}
	t.Run("higher ratings are drawn higher", func(t *testing.T) {
		f := strings.Fields(RatingChart(pts(1500, 1700)).Line)
		_, y0, _ := strings.Cut(f[0], ",")
		_, y1, _ := strings.Cut(f[1], ",")
		a, _ := strconv.ParseFloat(y0, 64)
		b, _ := strconv.ParseFloat(y1, 64)
		if b >= a {
			t.Fatalf("1700 at y=%v is not above 1500 at y=%v", b, a)
		}
	})
	t.Run("signed changes", func(t *testing.T) {
		for in, want := range map[float64]string{12.4: "+12", -7.6: "−8", 0.2: "±0"} {
			if got := signed(in); got != want {
				t.Errorf("signed(%v) = %q, want %q", in, got, want)
			}
		}
	})
}

// TestOutcomeText: a duel reads win, loss or draw; a free-for-all reads
// the placing, so a bot that came second of four does not read "loss".
func TestOutcomeText(t *testing.T) {
	cases := []struct {
		name  string
		row   store.HistoryRow
		text  string
		class string
	}{
		{"a duel won", store.HistoryRow{Status: "finished", Outcome: "win", Rank: 1}, "win", "ok"},
		{"a duel lost", store.HistoryRow{Status: "finished", Outcome: "loss", Rank: 2}, "loss", "failed"},
		{"a duel drawn", store.HistoryRow{Status: "finished", Outcome: "draw", Rank: 1}, "draw", ""},
		{"second of four", store.HistoryRow{Status: "finished", Outcome: "loss", Rank: 2, Others: 2}, "2nd of 4", ""},
		{"first of four", store.HistoryRow{Status: "finished", Outcome: "win", Rank: 1, Others: 2}, "1st of 4", "ok"},
		{"third of three", store.HistoryRow{Status: "finished", Outcome: "loss", Rank: 3, Others: 1}, "3rd of 3", ""},
		{"a free-for-all still running", store.HistoryRow{Status: "running", Others: 2}, "running", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := outcomeText(c.row); got != c.text {
				t.Errorf("text %q, want %q", got, c.text)
			}
			if got := outcomeClass(c.row); got != c.class {
				t.Errorf("class %q, want %q", got, c.class)
			}
		})
	}
}
