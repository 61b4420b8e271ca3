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
// match still queued or running is not matched again.
func (s *Service) LadderTick(ctx context.Context, game string, slots int, rng *rand.Rand) (int, error) {
	cands, err := s.candidates(ctx, game)
	if err != nil {
		return 0, err
	}
	var pairs []ladder.Pair
	if slots > 0 {
		pairs = ladder.Plan(cands, slots, s.Ladder, rng)
	}
	defer func() {
		// The queue left after this tick's pairs, for the pages; a failed
		// write only leaves the previous one showing.
		if err := s.saveQueue(ctx, game, cands, pairs, rng); err != nil {
			s.logger.Warn("ladder: save queue", "game", game, "err", err)
		}
	}()
	for _, p := range pairs {
		kind := "ladder"
		if p.Placement {
			kind = "placement"
		}
		err := s.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
			_, err := s.createMatch(ctx, st, tx, store.MatchCreateParams{
				Game: game, MapSize: s.mapSize(game), Seed: rng.Int64(), Kind: kind, Ranked: true,
				Players: []store.MatchPlayerParams{
					{BotID: p.A.BotID, BotVersionID: p.A.VersionID},
					{BotID: p.B.BotID, BotVersionID: p.B.VersionID},
				},
			})
			return err
		})
		if err != nil {
			return 0, fmt.Errorf("ladder %s: create match: %w", game, err)
		}
	}
	return len(pairs), nil
}

// saveQueue stores the queue as it stands once pairs are matched.
func (s *Service) saveQueue(ctx context.Context, game string, cands []ladder.Candidate, pairs []ladder.Pair, rng *rand.Rand) error {
	paired := make(map[int64]bool, 2*len(pairs))
	for _, p := range pairs {
		paired[p.A.BotID], paired[p.B.BotID] = true, true
	}
	left := make([]ladder.Candidate, len(cands))
	for i, c := range cands {
		left[i] = c
		left[i].Busy = c.Busy || paired[c.BotID]
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
