package tournament

import "fmt"

// Side is where a bracket match sits.
type Side string

// Bracket sides.
const (
	WinnersSide Side = "winners"
	LosersSide  Side = "losers"
	GrandFinal  Side = "grand_final"
	// ResetFinal is the rematch played only when the losers' champion wins
	// the grand final, so that both finalists have lost twice.
	ResetFinal Side = "reset"
)

// SourceKind says where a slot's player comes from.
type SourceKind int

// Slot sources.
const (
	FromSeed SourceKind = iota
	FromWinner
	FromLoser
)

// Source feeds one slot of a bracket match.
type Source struct {
	Kind SourceKind
	// Ref is the entrant for FromSeed (-1 for a bye), else a match ID.
	Ref int
}

// BracketMatch is one match of a double-elimination bracket.
type BracketMatch struct {
	ID    int
	Side  Side
	Round int // 1-based within its side
	From  [2]Source
}

// Bracket is a double-elimination bracket. Matches are listed so that every
// match comes after the matches it depends on.
type Bracket struct {
	Entrants int
	Size     int // the power of two the first round is drawn on
	Matches  []BracketMatch
}

// Slot values in a resolved match besides entrant indexes.
const (
	Bye     = -1 // nobody: the other player advances without a game
	Pending = -2 // not known until an earlier match is decided
)

// MatchState is a bracket match given the results so far.
type MatchState struct {
	BracketMatch
	Players [2]int
	// Decided is set once the match has a winner (by result or by bye).
	Decided bool
	// Played is set when a real game decided it (not a bye, not a skipped reset).
	Played        bool
	Winner, Loser int
}

// Playable reports whether the match waits for a game between two entrants.
func (m MatchState) Playable() bool {
	return !m.Decided && m.Players[0] >= 0 && m.Players[1] >= 0
}

// NewDoubleElimination draws a bracket for n entrants (n >= 2) in seed
// order: the first round pairs seed s with seed size-1-s, top seeds get the
// byes, and losers drop into the losers' side in reversed order on
// alternate rounds to postpone rematches.
func NewDoubleElimination(n int) (*Bracket, error) {
	if n < 2 {
		return nil, fmt.Errorf("double elimination needs at least 2 entrants, got %d", n)
	}
	size, k := 1, 0
	for size < n {
		size *= 2
		k++
	}
	b := &Bracket{Entrants: n, Size: size}
	add := func(side Side, round int, a, c Source) int {
		id := len(b.Matches)
		b.Matches = append(b.Matches, BracketMatch{ID: id, Side: side, Round: round, From: [2]Source{a, c}})
		return id
	}
	seed := func(s int) Source {
		if s >= n {
			return Source{FromSeed, Bye}
		}
		return Source{FromSeed, s}
	}

	// Winners' side.
	order := seedOrder(size)
	wb := make([][]int, k+1)
	for i := 0; i < size/2; i++ {
		wb[1] = append(wb[1], add(WinnersSide, 1, seed(order[2*i]), seed(order[2*i+1])))
	}
	for r := 2; r <= k; r++ {
		prev := wb[r-1]
		for i := 0; i+1 < len(prev); i += 2 {
			wb[r] = append(wb[r], add(WinnersSide, r, Source{FromWinner, prev[i]}, Source{FromWinner, prev[i+1]}))
		}
	}

	// Losers' side: odd rounds pair survivors, even rounds bring in the
	// losers of the next winners' round.
	var lbChampion Source
	if k == 1 {
		lbChampion = Source{FromLoser, wb[1][0]}
	} else {
		var cur []int
		for i := 0; i+1 < len(wb[1]); i += 2 {
			cur = append(cur, add(LosersSide, 1, Source{FromLoser, wb[1][i]}, Source{FromLoser, wb[1][i+1]}))
		}
		round := 1
		for j := 1; j <= k-1; j++ {
			round++
			drop := wb[j+1]
			var next []int
			for i, m := range cur {
				d := drop[i]
				if j%2 == 1 {
					d = drop[len(drop)-1-i]
				}
				next = append(next, add(LosersSide, round, Source{FromWinner, m}, Source{FromLoser, d}))
			}
			cur = next
			if j == k-1 {
				break
			}
			round++
			next = nil
			for i := 0; i+1 < len(cur); i += 2 {
				next = append(next, add(LosersSide, round, Source{FromWinner, cur[i]}, Source{FromWinner, cur[i+1]}))
			}
			cur = next
		}
		lbChampion = Source{FromWinner, cur[0]}
	}
	gf := add(GrandFinal, 1, Source{FromWinner, wb[k][0]}, lbChampion)
	add(ResetFinal, 1, Source{FromWinner, gf}, Source{FromLoser, gf})
	return b, nil
}

// seedOrder lists seeds in first-round bracket positions: 1v8, 4v5, 2v7,
// 3v6 for size 8 (zero-based), so the top two seeds can only meet in the final.
func seedOrder(size int) []int {
	order := []int{0}
	for len(order) < size {
		m := len(order) * 2
		next := make([]int, 0, m)
		for _, s := range order {
			next = append(next, s, m-1-s)
		}
		order = next
	}
	return order
}

// Resolve applies results (match ID to the winning slot, 0 or 1) and
// returns every match's state. Byes advance the other player; the reset
// final is skipped when the winners' champion wins the grand final.
func (b *Bracket) Resolve(results map[int]int) ([]MatchState, error) {
	st := make([]MatchState, len(b.Matches))
	player := func(s Source) int {
		switch s.Kind {
		case FromSeed:
			return s.Ref
		case FromWinner:
			if !st[s.Ref].Decided {
				return Pending
			}
			return st[s.Ref].Winner
		default:
			if !st[s.Ref].Decided {
				return Pending
			}
			return st[s.Ref].Loser
		}
	}
	for i, m := range b.Matches {
		s := MatchState{BracketMatch: m, Winner: Pending, Loser: Pending}
		s.Players = [2]int{player(m.From[0]), player(m.From[1])}
		res, hasResult := results[m.ID]
		if hasResult && res != 0 && res != 1 {
			return nil, fmt.Errorf("match %d: winning slot must be 0 or 1, got %d", m.ID, res)
		}
		switch {
		case s.Players[0] == Pending || s.Players[1] == Pending:
		case m.Side == ResetFinal && st[m.From[0].Ref].Played && grandFinalWonByWinnersChampion(st[m.From[0].Ref]):
			gf := st[m.From[0].Ref]
			s.Decided, s.Winner, s.Loser = true, gf.Winner, gf.Loser
		case s.Players[0] == Bye && s.Players[1] == Bye:
			s.Decided, s.Winner, s.Loser = true, Bye, Bye
		case s.Players[0] == Bye:
			s.Decided, s.Winner, s.Loser = true, s.Players[1], Bye
		case s.Players[1] == Bye:
			s.Decided, s.Winner, s.Loser = true, s.Players[0], Bye
		case hasResult:
			s.Decided, s.Played = true, true
			s.Winner, s.Loser = s.Players[res], s.Players[1-res]
		}
		if hasResult && !s.Played {
			return nil, fmt.Errorf("match %d has a result but is not playable", m.ID)
		}
		st[i] = s
	}
	return st, nil
}

func grandFinalWonByWinnersChampion(gf MatchState) bool {
	return gf.Winner == gf.Players[0]
}

// Placements returns each entrant's final position once the bracket is
// complete (ok false before): 1 and 2 for the finalists, then by how late
// an entrant was knocked out; entrants knocked out in the same losers'
// round share a position (5th-6th shows as 5 for both).
func (b *Bracket) Placements(st []MatchState) (pos []int, ok bool) {
	last := st[len(st)-1]
	if !last.Decided {
		return nil, false
	}
	// Knock-out stage of each entrant: the index of the losers' match in
	// which it lost its second game; finalists rank above everyone.
	out := make([]int, b.Entrants)
	for i := range out {
		out[i] = -1
	}
	for _, m := range st {
		if m.Side == LosersSide && m.Played {
			out[m.Loser] = m.Round
		}
	}
	const finalist = 1 << 20
	out[last.Winner] = finalist + 1
	out[last.Loser] = finalist
	pos = make([]int, b.Entrants)
	for i := range pos {
		better := 0
		for j := range out {
			if out[j] > out[i] {
				better++
			}
		}
		pos[i] = better + 1
	}
	return pos, true
}
