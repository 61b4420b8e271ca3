package tournament

import "sort"

// Standing is one entrant's line in a table.
type Standing struct {
	Entrant int
	Played  int
	Wins    int
	Draws   int
	Losses  int
	// Score counts a win as 2 and a draw as 1 (half points, kept integral).
	Score int
	// Buchholz is the sum of the opponents' scores (Swiss tie-break).
	Buchholz int
	// SonnebornBerger is the sum of the scores of opponents beaten plus half
	// of those drawn, in the same integral units.
	SonnebornBerger int
	// Points is the in-game points scored over all games.
	Points int
}

// Standings ranks entrants by the stated tie-breaks, in order: score (a
// bye counts as a win against nobody);
// for round robin the head-to-head score among the tied entrants, for Swiss
// the Buchholz score; then Sonneborn-Berger; then in-game points; then the
// better seed.
func Standings(n int, games []Game, byes []int, format Format) []Standing {
	st := make([]Standing, n)
	for i := range st {
		st[i].Entrant = i
	}
	for _, e := range byes {
		st[e].Score += 2
	}
	for _, g := range games {
		a, b := &st[g.A], &st[g.B]
		a.Played++
		b.Played++
		a.Points += g.PointsA
		b.Points += g.PointsB
		switch g.Outcome {
		case Win:
			a.Wins++
			b.Losses++
			a.Score += 2
		case Loss:
			b.Wins++
			a.Losses++
			b.Score += 2
		case Draw:
			a.Draws++
			b.Draws++
			a.Score++
			b.Score++
		}
	}
	for _, g := range games {
		a, b := &st[g.A], &st[g.B]
		a.Buchholz += st[g.B].Score
		b.Buchholz += st[g.A].Score
		switch g.Outcome {
		case Win:
			a.SonnebornBerger += 2 * st[g.B].Score
		case Loss:
			b.SonnebornBerger += 2 * st[g.A].Score
		case Draw:
			a.SonnebornBerger += st[g.B].Score
			b.SonnebornBerger += st[g.A].Score
		}
	}
	h2h := headToHead(n, games, st)
	sort.SliceStable(st, func(i, j int) bool {
		x, y := st[i], st[j]
		if x.Score != y.Score {
			return x.Score > y.Score
		}
		if format == Swiss {
			if x.Buchholz != y.Buchholz {
				return x.Buchholz > y.Buchholz
			}
		} else if hx, hy := h2h[x.Entrant], h2h[y.Entrant]; hx != hy {
			return hx > hy
		}
		if x.SonnebornBerger != y.SonnebornBerger {
			return x.SonnebornBerger > y.SonnebornBerger
		}
		if x.Points != y.Points {
			return x.Points > y.Points
		}
		return x.Entrant < y.Entrant
	})
	return st
}

// headToHead returns each entrant's score in the games among the entrants
// that share its overall score.
func headToHead(n int, games []Game, st []Standing) []int {
	h := make([]int, n)
	for _, g := range games {
		if st[g.A].Score != st[g.B].Score {
			continue
		}
		switch g.Outcome {
		case Win:
			h[g.A] += 2
		case Loss:
			h[g.B] += 2
		case Draw:
			h[g.A]++
			h[g.B]++
		}
	}
	return h
}
