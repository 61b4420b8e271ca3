package competition

import (
	"context"
	"sort"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/tournament"
)

// BattleReport is everything a battle's page shows: its entrants, games,
// the standings so far and, for double elimination, the bracket.
type BattleReport struct {
	Battle  *store.Battle
	Entries []store.BattleEntry
	Games   []store.BattleGame
	// Table is the standings so far (round robin, Swiss, free-for-all),
	// best first.
	Table []StandingRow
	// Bracket lists a double-elimination bracket's matches in play order.
	Bracket []BracketRow
}

// StandingRow is one line of a battle's standings.
type StandingRow struct {
	tournament.Standing
	Rank  int
	Entry store.BattleEntry
}

// BracketRow is one match of a double-elimination bracket.
type BracketRow struct {
	ID    int
	Side  tournament.Side
	Round int
	// Players are the two slots' entrants; nil for a bye or a slot still
	// waiting for an earlier match.
	Players [2]*store.BattleEntry
	// Bye marks the slots that are byes.
	Bye [2]bool
	// Winner is the slot that won, -1 while undecided.
	Winner int
	// Played is false for a match decided by a bye or a reset not needed.
	Played  bool
	Decided bool
	Matches []int64
}

// BattleReport reads a battle and works out its standings or bracket.
func (s *Service) BattleReport(ctx context.Context, battleID int64) (*BattleReport, error) {
	b, err := s.store.BattleGetByID(ctx, battleID)
	if err != nil {
		return nil, err
	}
	entries, err := s.store.BattleEntries(ctx, battleID)
	if err != nil {
		return nil, err
	}
	rep := &BattleReport{Battle: b, Entries: entries}
	if b.Status == "open" {
		return rep, nil
	}
	bs, err := loadBattleState(ctx, s.store, b, entries)
	if err != nil {
		return nil, err
	}
	rep.Games = bs.games
	if len(entries) < 2 {
		return rep, nil
	}
	switch b.Format {
	case string(tournament.DoubleElimination):
		rep.Bracket, err = bracketRows(bs)
	case freeForAll:
		rep.Table = freeForAllTable(bs)
	case string(tournament.Swiss):
		played := 0
		for _, g := range bs.games {
			played = max(played, g.Round+1)
		}
		rep.Table = tableRows(bs, tournament.Standings(len(entries), bs.twoPlayerGames(nil), swissByes(bs, played), tournament.Swiss))
	default:
		rep.Table = tableRows(bs, tournament.Standings(len(entries), bs.twoPlayerGames(nil), nil, tournament.RoundRobin))
	}
	return rep, err
}

func tableRows(bs *battleState, table []tournament.Standing) []StandingRow {
	out := make([]StandingRow, len(table))
	for i, st := range table {
		out[i] = StandingRow{Standing: st, Rank: i + 1, Entry: bs.entries[st.Entrant]}
	}
	return out
}

// freeForAllTable ranks entrants by total score; equal totals share a rank.
func freeForAllTable(bs *battleState) []StandingRow {
	rows := make([]StandingRow, len(bs.entries))
	for i, e := range bs.entries {
		rows[i] = StandingRow{Standing: tournament.Standing{Entrant: i}, Entry: e}
	}
	for _, g := range bs.games {
		if g.MatchStatus != "finished" {
			continue
		}
		for seat, id := range g.BotIDs {
			r := &rows[bs.index[id]]
			r.Played++
			r.Points += g.Points[seat]
			switch g.Outcomes[seat] {
			case "win":
				r.Wins++
			case "draw":
				r.Draws++
			case "loss":
				r.Losses++
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Points > rows[j].Points })
	for i := range rows {
		rows[i].Rank = i + 1
		if i > 0 && rows[i].Points == rows[i-1].Points {
			rows[i].Rank = rows[i-1].Rank
		}
	}
	return rows
}

func bracketRows(bs *battleState) ([]BracketRow, error) {
	bk, err := resolveBracket(bs)
	if err != nil {
		return nil, err
	}
	out := make([]BracketRow, 0, len(bk.states))
	for _, m := range bk.states {
		row := BracketRow{ID: m.ID, Side: m.Side, Round: m.Round, Winner: -1, Played: m.Played, Decided: m.Decided}
		for slot, p := range m.Players {
			switch {
			case p >= 0:
				row.Players[slot] = &bs.entries[p]
			case p == tournament.Bye:
				row.Bye[slot] = true
			}
		}
		if m.Decided && m.Players[0] >= 0 && m.Winner == m.Players[0] {
			row.Winner = 0
		} else if m.Decided && m.Players[1] >= 0 && m.Winner == m.Players[1] {
			row.Winner = 1
		}
		for _, g := range bk.series[m.ID] {
			row.Matches = append(row.Matches, g.MatchID)
		}
		out = append(out, row)
	}
	return out, nil
}
