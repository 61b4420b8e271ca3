package competition

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/event"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/tournament"
)

// Battle formats beyond the tournament package's: Hit and Sunk battles are
// free-for-alls of all entrants.
const freeForAll = "free_for_all"

// StartDueBattles starts every open battle whose start time has come.
func (s *Service) StartDueBattles(ctx context.Context) error {
	due, err := s.store.BattleListDue(ctx, s.now())
	if err != nil {
		return err
	}
	for _, b := range due {
		if err := s.StartBattle(ctx, b.ID); err != nil {
			return fmt.Errorf("start battle %d: %w", b.ID, err)
		}
	}
	return nil
}

// StartBattle freezes the entrants' current versions, seeds them by
// rating and schedules the first games. A battle with fewer than two
// playable entrants is canceled.
func (s *Service) StartBattle(ctx context.Context, battleID int64) error {
	return s.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		b, err := st.BattleGetForUpdate(ctx, battleID)
		if err != nil {
			return err
		}
		if b.Status != "open" {
			return nil
		}
		return s.startLocked(ctx, st, tx, b)
	})
}

// startLocked starts an open battle whose row the transaction holds.
func (s *Service) startLocked(ctx context.Context, st *store.Store, tx pgx.Tx, b *store.Battle) error {
	entries, err := st.BattleFreezeEntries(ctx, b.ID, b.Game)
	if err != nil {
		return err
	}
	if len(entries) < 2 {
		s.logger.Warn("battle canceled: fewer than two entrants with a built bot", "battle_id", b.ID, "entrants", len(entries))
		return st.BattleSetStatus(ctx, b.ID, "canceled")
	}
	if err := st.BattleSetStatus(ctx, b.ID, "running"); err != nil {
		return err
	}
	b.Status = "running"
	return s.advance(ctx, st, tx, b, entries)
}

// AdvanceBattle schedules a running battle's next games once the current
// ones are done, and concludes it when nothing is left to play. It is
// called after each battle match and periodically; it is idempotent.
func (s *Service) AdvanceBattle(ctx context.Context, battleID int64) error {
	return s.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		b, err := st.BattleGetForUpdate(ctx, battleID)
		if err != nil {
			return err
		}
		if b.Status != "running" {
			return nil
		}
		entries, err := st.BattleEntries(ctx, battleID)
		if err != nil {
			return err
		}
		return s.advance(ctx, st, tx, b, entries)
	})
}

// battleState is a battle's games seen through entrant indexes (seed order).
type battleState struct {
	b       *store.Battle
	entries []store.BattleEntry
	index   map[int64]int // bot ID to entrant index
	games   []store.BattleGame
	pending bool // a game is still queued or running
}

func done(status string) bool {
	return status == "finished" || status == "failed" || status == "canceled"
}

// loadBattleState reads a battle's games and indexes its entrants.
func loadBattleState(ctx context.Context, st *store.Store, b *store.Battle, entries []store.BattleEntry) (*battleState, error) {
	games, err := st.BattleGames(ctx, b.ID)
	if err != nil {
		return nil, err
	}
	bs := &battleState{b: b, entries: entries, index: make(map[int64]int, len(entries)), games: games}
	for i, e := range entries {
		bs.index[e.BotID] = i
	}
	for _, g := range games {
		if !done(g.MatchStatus) {
			bs.pending = true
		}
	}
	return bs, nil
}

func (s *Service) advance(ctx context.Context, st *store.Store, tx pgx.Tx, b *store.Battle, entries []store.BattleEntry) error {
	bs, err := loadBattleState(ctx, st, b, entries)
	if err != nil {
		return err
	}
	switch b.Format {
	case string(tournament.RoundRobin):
		return s.advanceRoundRobin(ctx, st, tx, bs)
	case string(tournament.Swiss):
		return s.advanceSwiss(ctx, st, tx, bs)
	case string(tournament.DoubleElimination):
		return s.advanceDoubleElimination(ctx, st, tx, bs)
	case freeForAll:
		return s.advanceFreeForAll(ctx, st, tx, bs)
	}
	return fmt.Errorf("battle %d: unknown format %q", b.ID, b.Format)
}

// schedule creates the games of one pairing: gamesPerPairing matches with
// the seats alternating between games.
func (s *Service) schedule(ctx context.Context, st *store.Store, tx pgx.Tx, bs *battleState, round int, bracket *int, seats ...int) error {
	for g := 0; g < bs.b.GamesPerPairing; g++ {
		order := append([]int(nil), seats...)
		if g%2 == 1 {
			// Rotate seats: in two-player games this swaps A and B.
			order = append(order[1:], order[0])
		}
		players := make([]store.MatchPlayerParams, len(order))
		seedParts := []int64{int64(round), int64(g)}
		if bracket != nil {
			seedParts = append(seedParts, int64(*bracket))
		}
		for i, e := range order {
			ent := bs.entries[e]
			if ent.VersionID == nil {
				return fmt.Errorf("battle %d: entry %d has no frozen version", bs.b.ID, ent.BotID)
			}
			players[i] = store.MatchPlayerParams{BotID: ent.BotID, BotVersionID: *ent.VersionID}
			seedParts = append(seedParts, ent.BotID)
		}
		matchID, err := s.createMatch(ctx, st, tx, store.MatchCreateParams{
			Game: bs.b.Game, MapSize: bs.b.MapSize, Seed: deriveSeed(bs.b.Seed, seedParts...),
			Kind: "battle", Ranked: false, Players: players,
		})
		if err != nil {
			return err
		}
		if err := st.BattleGameAdd(ctx, bs.b.ID, round, bracket, g+1, matchID); err != nil {
			return err
		}
	}
	return nil
}

// twoPlayerGames converts finished two-player games for standings; failed
// or canceled matches count as draws so a battle never stalls on them.
func (bs *battleState) twoPlayerGames(filter func(store.BattleGame) bool) []tournament.Game {
	var out []tournament.Game
	for _, g := range bs.games {
		if !done(g.MatchStatus) || len(g.BotIDs) != 2 || (filter != nil && !filter(g)) {
			continue
		}
		tg := tournament.Game{A: bs.index[g.BotIDs[0]], B: bs.index[g.BotIDs[1]], Outcome: tournament.Draw}
		if g.MatchStatus == "finished" {
			switch g.Outcomes[0] {
			case "win":
				tg.Outcome = tournament.Win
			case "loss":
				tg.Outcome = tournament.Loss
			}
			tg.PointsA, tg.PointsB = g.Points[0], g.Points[1]
		}
		out = append(out, tg)
	}
	return out
}

func (s *Service) finish(ctx context.Context, st *store.Store, bs *battleState, order []int, positions []int) error {
	final := make(map[int64]int, len(order))
	for i, e := range order {
		final[bs.entries[e].BotID] = positions[i]
	}
	if err := st.BattleSetFinalPositions(ctx, bs.b.ID, final); err != nil {
		return err
	}
	s.logger.Info("battle finished", "battle_id", bs.b.ID, "entrants", len(order))
	if err := st.BattleSetStatus(ctx, bs.b.ID, "finished"); err != nil {
		return err
	}
	return publishBattleFinished(ctx, st, bs.b, bs.entries, final)
}

// publishBattleFinished tells each entrant's owner that the battle
// finished, with their own bots only, and their positions only when the
// results are public.
func publishBattleFinished(ctx context.Context, st *store.Store, b *store.Battle, entries []store.BattleEntry, final map[int64]int) error {
	byUser := map[int64]*event.Battle{}
	var users []int64
	for _, e := range entries {
		d := byUser[e.UserID]
		if d == nil {
			d = &event.Battle{BattleID: b.ID, Name: b.Name, ResultsHidden: !b.ResultsVisible()}
			byUser[e.UserID] = d
			users = append(users, e.UserID)
		}
		entry := event.BattleEntry{Bot: event.Bot{ID: e.BotID, Name: e.BotName, Game: b.Game}}
		if pos, ok := final[e.BotID]; ok && b.ResultsVisible() {
			entry.Position = &pos
		}
		d.Entries = append(d.Entries, entry)
	}
	for _, u := range users {
		if err := st.EventPublish(ctx, event.Event{UserID: u, Type: event.BattleFinished, Data: *byUser[u]}); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) advanceRoundRobin(ctx context.Context, st *store.Store, tx pgx.Tx, bs *battleState) error {
	if len(bs.games) == 0 {
		pairs, err := tournament.RoundRobinSchedule(len(bs.entries), 1)
		if err != nil {
			return err
		}
		for _, p := range pairs {
			if err := s.schedule(ctx, st, tx, bs, p.Round, nil, p.A, p.B); err != nil {
				return err
			}
		}
		return nil
	}
	if bs.pending {
		return nil
	}
	table := tournament.Standings(len(bs.entries), bs.twoPlayerGames(nil), nil, tournament.RoundRobin)
	return s.finishByTable(ctx, st, bs, table)
}

func (s *Service) finishByTable(ctx context.Context, st *store.Store, bs *battleState, table []tournament.Standing) error {
	order := make([]int, len(table))
	pos := make([]int, len(table))
	for i, row := range table {
		order[i], pos[i] = row.Entrant, i+1
	}
	return s.finish(ctx, st, bs, order, pos)
}

func (s *Service) advanceSwiss(ctx context.Context, st *store.Store, tx pgx.Tx, bs *battleState) error {
	if bs.pending {
		return nil
	}
	n := len(bs.entries)
	rounds := bs.b.SwissRounds
	if rounds <= 0 {
		rounds = tournament.SwissRounds(n)
	}
	played := 0
	for _, g := range bs.games {
		played = max(played, g.Round+1)
	}
	byes := swissByes(bs, played)
	games := bs.twoPlayerGames(nil)
	if played >= rounds {
		return s.finishByTable(ctx, st, bs, tournament.Standings(n, games, byes, tournament.Swiss))
	}
	pairs, _, err := tournament.SwissPair(played, n, games, byes)
	if err != nil {
		return err
	}
	for _, p := range pairs {
		if err := s.schedule(ctx, st, tx, bs, played, nil, p.A, p.B); err != nil {
			return err
		}
	}
	return nil
}

// swissByes recovers the byes of the rounds played: with an odd number of
// entrants, the one entrant without a game in a round had the bye.
func swissByes(bs *battleState, rounds int) []int {
	if len(bs.entries)%2 == 0 {
		return nil
	}
	var byes []int
	for r := 0; r < rounds; r++ {
		seen := make(map[int]bool)
		for _, g := range bs.games {
			if g.Round == r {
				for _, id := range g.BotIDs {
					seen[bs.index[id]] = true
				}
			}
		}
		for e := range bs.entries {
			if !seen[e] {
				byes = append(byes, e)
			}
		}
	}
	return byes
}

func (s *Service) advanceDoubleElimination(ctx context.Context, st *store.Store, tx pgx.Tx, bs *battleState) error {
	bk, err := resolveBracket(bs)
	if err != nil {
		return err
	}
	if pos, ok := bk.bracket.Placements(bk.states); ok {
		order := make([]int, len(pos))
		for i := range order {
			order[i] = i
		}
		return s.finish(ctx, st, bs, order, pos)
	}
	for _, m := range bk.states {
		if m.Playable() && len(bk.series[m.ID]) == 0 {
			id := m.ID
			if err := s.schedule(ctx, st, tx, bs, roundOf(m), &id, m.Players[0], m.Players[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolvedBracket is a double-elimination bracket with the games so far.
type resolvedBracket struct {
	bracket *tournament.Bracket
	states  []tournament.MatchState
	// series holds each bracket match's games.
	series map[int][]store.BattleGame
}

// resolveBracket decides every bracket match whose games are all done.
func resolveBracket(bs *battleState) (*resolvedBracket, error) {
	br, err := tournament.NewDoubleElimination(len(bs.entries))
	if err != nil {
		return nil, err
	}
	results := make(map[int]int)
	series := make(map[int][]store.BattleGame)
	for _, g := range bs.games {
		if g.BracketMatch != nil {
			series[*g.BracketMatch] = append(series[*g.BracketMatch], g)
		}
	}
	states, err := br.Resolve(nil)
	if err != nil {
		return nil, err
	}
	// Decide series in bracket order, again and again: a match's players
	// are only known once the matches feeding it are decided.
	for changed := true; changed; {
		changed = false
		for _, m := range states {
			if _, ok := results[m.ID]; ok || !m.Playable() || len(series[m.ID]) == 0 {
				continue
			}
			slot, ok := seriesWinner(bs, series[m.ID], m.Players)
			if !ok {
				continue
			}
			results[m.ID] = slot
			changed = true
		}
		if changed {
			if states, err = br.Resolve(results); err != nil {
				return nil, err
			}
		}
	}
	return &resolvedBracket{bracket: br, states: states, series: series}, nil
}

// roundOf numbers bracket rounds for display: winners' rounds as they are,
// losers' rounds after 100, the finals after 200.
func roundOf(m tournament.MatchState) int {
	switch m.Side {
	case tournament.LosersSide:
		return 100 + m.Round
	case tournament.GrandFinal:
		return 200
	case tournament.ResetFinal:
		return 201
	}
	return m.Round
}

// seriesWinner decides a bracket match from its games once all are done:
// more wins, then more points, then the better seed.
func seriesWinner(bs *battleState, games []store.BattleGame, players [2]int) (int, bool) {
	if len(games) == 0 {
		return 0, false
	}
	wins := map[int]int{}
	points := map[int]int{}
	for _, g := range games {
		if !done(g.MatchStatus) {
			return 0, false
		}
		for seat, id := range g.BotIDs {
			e := bs.index[id]
			if g.MatchStatus == "finished" && g.Outcomes[seat] == "win" {
				wins[e]++
			}
			points[e] += g.Points[seat]
		}
	}
	a, b := players[0], players[1]
	switch {
	case wins[a] != wins[b]:
		return boolSlot(wins[b] > wins[a]), true
	case points[a] != points[b]:
		return boolSlot(points[b] > points[a]), true
	}
	return boolSlot(b < a), true
}

func boolSlot(second bool) int {
	if second {
		return 1
	}
	return 0
}

func (s *Service) advanceFreeForAll(ctx context.Context, st *store.Store, tx pgx.Tx, bs *battleState) error {
	if len(bs.games) == 0 {
		all := make([]int, len(bs.entries))
		for i := range all {
			all[i] = i
		}
		return s.schedule(ctx, st, tx, bs, 0, nil, all...)
	}
	if bs.pending {
		return nil
	}
	total := make([]int, len(bs.entries))
	for _, g := range bs.games {
		for seat, id := range g.BotIDs {
			total[bs.index[id]] += g.Points[seat]
		}
	}
	order := make([]int, len(bs.entries))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return total[order[i]] > total[order[j]] })
	pos := make([]int, len(order))
	for i := range order {
		pos[i] = i + 1
		if i > 0 && total[order[i]] == total[order[i-1]] {
			pos[i] = pos[i-1]
		}
	}
	return s.finish(ctx, st, bs, order, pos)
}
