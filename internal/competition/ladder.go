package competition

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/ladder"
	"github.com/broadside/broadside/internal/store"
)

// LadderStatus is what the ladder page shows about matchmaking.
type LadderStatus struct {
	// Waiting is the queue depth: bots waiting for their next ladder game.
	Waiting int
	// Position is each waiting bot's place in the queue (1 = next).
	Position map[int64]int
	// Pending counts ladder matches queued or running.
	Pending int
}

// LadderTick creates up to slots ranked matches for a game's ladder and
// returns how many it created. It runs periodically; a bot with a ladder
// match still queued or running is not matched again. A two-player game's
// matches come in pairs (see pair.go), which take two slots; a
// free-for-all game's seat every bot available, up to the rule set's
// largest field, as the original controller seated every entry.
func (s *Service) LadderTick(ctx context.Context, game string, slots int, rng *rand.Rand) (int, error) {
	cands, err := s.candidates(ctx, game)
	if err != nil {
		return 0, err
	}
	var groups []ladder.Group
	if slots > 0 {
		groups = s.plan(game, cands, slots, rng)
	}
	defer func() {
		// The queue left after this tick's matches, for the pages; a
		// failed write only leaves the previous one showing.
		if err := s.saveQueue(ctx, game, cands, groups, rng); err != nil {
			s.logger.Warn("ladder: save queue", "game", game, "err", err)
		}
	}()
	created := 0
	for _, g := range groups {
		n, err := s.createLadderMatches(ctx, game, g, rng.Int64())
		if err != nil {
			return created, fmt.Errorf("ladder %s: create match: %w", game, err)
		}
		created += n
	}
	return created, nil
}

// LadderFieldSize is how many bots a free-for-all ladder match seats at
// most: the rule set's largest field.
func (s *Service) LadderFieldSize(game string) int {
	rs, err := s.Rules.Get(game)
	if err != nil {
		return 2
	}
	_, most := rs.Seats()
	return most
}

// plan picks this tick's matches: free-for-all fields, or pairings of two
// (each played as a pair of matches).
func (s *Service) plan(game string, cands []ladder.Candidate, slots int, rng *rand.Rand) []ladder.Group {
	if s.traits(game).FreeForAll {
		return ladder.PlanGroups(cands, slots, s.LadderFieldSize(game), s.Ladder, rng)
	}
	var groups []ladder.Group
	// A pair takes two slots; while one is free a pair is still made, so a
	// ladder of one slot plays too.
	for _, p := range ladder.Plan(cands, (slots+1)/2, s.Ladder, rng) {
		groups = append(groups, ladder.Group{Bots: []ladder.Candidate{p.A, p.B}, Placement: p.Placement})
	}
	return groups
}

// createLadderMatches records and enqueues one planned ladder match, or for
// two bots the pair of matches with the seats swapped, in one transaction.
func (s *Service) createLadderMatches(ctx context.Context, game string, g ladder.Group, seed int64) (int, error) {
	kind := "ladder"
	if g.Placement {
		kind = "placement"
	}
	seats := make([]store.MatchPlayerParams, len(g.Bots))
	for i, b := range g.Bots {
		seats[i] = store.MatchPlayerParams{BotID: b.BotID, BotVersionID: b.VersionID}
	}
	params := store.MatchCreateParams{Game: game, MapSize: s.mapSize(game), Seed: seed, Kind: kind, Ranked: true, Players: seats}
	n := 0
	err := s.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		first, err := s.createMatch(ctx, st, tx, params)
		if err != nil {
			return err
		}
		n = 1
		if s.traits(game).FreeForAll {
			return nil
		}
		second := params
		second.Players = []store.MatchPlayerParams{seats[1], seats[0]}
		second.PairID = first
		_, err = s.createMatch(ctx, st, tx, second)
		n = 2
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// saveQueue stores the queue as it stands once this tick's matches are made.
func (s *Service) saveQueue(ctx context.Context, game string, cands []ladder.Candidate, groups []ladder.Group, rng *rand.Rand) error {
	playing := make(map[int64]bool)
	for _, g := range groups {
		for _, b := range g.Bots {
			playing[b.BotID] = true
		}
	}
	left := make([]ladder.Candidate, len(cands))
	for i, c := range cands {
		left[i] = c
		left[i].Busy = c.Busy || playing[c.BotID]
	}
	q := ladder.Queue(left, s.Ladder, rng)
	rows := make([]store.LadderQueueRow, len(q))
	for i, c := range q {
		rows[i] = store.LadderQueueRow{BotID: c.BotID, Position: i + 1, GamesToday: c.GamesToday, PlacementLeft: c.PlacementLeft}
	}
	return s.store.LadderQueueReplace(ctx, game, rows)
}

// Status returns the ladder's queue: depth and each waiting bot's position.
func (s *Service) Status(ctx context.Context, game string) (*LadderStatus, error) {
	cands, err := s.candidates(ctx, game)
	if err != nil {
		return nil, err
	}
	// A fixed seed: the order shown must not flicker between page loads.
	q := ladder.Queue(cands, s.Ladder, rand.New(rand.NewPCG(1, 1)))
	st := &LadderStatus{Waiting: len(q), Position: make(map[int64]int, len(q))}
	for i, c := range q {
		st.Position[c.BotID] = i + 1
	}
	for _, c := range cands {
		if c.Busy {
			st.Pending++
		}
	}
	return st, nil
}

func (s *Service) candidates(ctx context.Context, game string) ([]ladder.Candidate, error) {
	rows, err := s.store.LadderCandidates(ctx, game)
	if err != nil {
		return nil, err
	}
	out := make([]ladder.Candidate, 0, len(rows))
	for _, r := range rows {
		out = append(out, ladder.Candidate{
			BotID: r.BotID, VersionID: r.VersionID, OwnerID: r.OwnerID,
			Rating: r.Rating, RD: r.Deviation, GamesToday: r.GamesToday,
			PlacementLeft: max(0, ladder.PlacementGames-r.VersionGames),
			Busy:          r.Busy, House: r.House,
		})
	}
	return out, nil
}
