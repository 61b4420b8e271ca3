package competition

import (
	"context"
	"time"
)

// Ladder states of one bot, as its page shows them.
const (
	LadderPlaying = "playing" // a ladder match is queued or running
	LadderWaiting = "waiting" // in the queue for its next match
	LadderResting = "resting" // not in the queue: today's limit reached, or not matched yet
	LadderHouse   = "house"   // a yardstick: plays only when chosen
	LadderOff     = "off"     // disabled, or no built version
)

// BotLadder is what a bot's page says about its next ladder game.
type BotLadder struct {
	State string
	// MatchID is the queued or running ladder match (State playing).
	MatchID int64
	// Position is the bot's place in the queue (1 = next) of Waiting bots.
	Position, Waiting int
	// PlacementLeft counts the placement matches the version still owes.
	PlacementLeft int
	GamesToday    int
	// ExpectedIn estimates the wait from the last hour's ladder
	// throughput; zero when there is nothing to go by.
	ExpectedIn time.Duration
}

// LadderQueue is the ladder's queue for a game, for the leaderboard.
type LadderQueue struct {
	// Waiting bots ask for a game; Pending matches are queued or running.
	Waiting, Pending int
	// PerHour is how many ladder matches finished in the last hour.
	PerHour int
}

// Queue summarises a game's ladder queue as the matchmaker's last tick
// left it.
func (s *Service) Queue(ctx context.Context, game string) (*LadderQueue, error) {
	waiting, err := s.store.LadderQueueDepth(ctx, game)
	if err != nil {
		return nil, err
	}
	pending, err := s.store.LadderPending(ctx, game)
	if err != nil {
		return nil, err
	}
	perHour, err := s.store.LadderFinishedSince(ctx, game, s.now().Add(-time.Hour))
	if err != nil {
		return nil, err
	}
	return &LadderQueue{Waiting: waiting, Pending: pending, PerHour: perHour}, nil
}

// BotLadder tells where a bot stands in its game's ladder queue. It reads
// the queue the matchmaker saved, never redoing the matchmaking: pages
// must stay cheap with thousands of bots.
func (s *Service) BotLadder(ctx context.Context, botID int64) (*BotLadder, error) {
	bot, err := s.store.BotGetByID(ctx, botID)
	if err != nil {
		return nil, err
	}
	out := &BotLadder{State: LadderOff}
	if bot.Disabled || bot.CurrentVersionID == nil {
		return out, nil
	}
	if id, ok, err := s.store.LadderMatchOf(ctx, botID); err != nil {
		return nil, err
	} else if ok {
		out.State, out.MatchID = LadderPlaying, id
		return out, nil
	}
	if bot.House {
		out.State = LadderHouse
		return out, nil
	}
	row, ok, err := s.store.LadderQueueOf(ctx, bot.Game, botID)
	if err != nil {
		return nil, err
	}
	if !ok {
		out.State = LadderResting
		return out, nil
	}
	waiting, err := s.store.LadderQueueDepth(ctx, bot.Game)
	if err != nil {
		return nil, err
	}
	out.State, out.Position, out.Waiting = LadderWaiting, row.Position, waiting
	out.GamesToday, out.PlacementLeft = row.GamesToday, row.PlacementLeft
	perHour, err := s.store.LadderFinishedSince(ctx, bot.Game, s.now().Add(-time.Hour))
	if err != nil {
		return nil, err
	}
	pending, err := s.store.LadderPending(ctx, bot.Game)
	if err != nil {
		return nil, err
	}
	if perHour > 0 {
		// Each match takes two bots from the queue; the matches queued or
		// running finish first.
		ahead := float64(row.Position-1)/2 + float64(pending)
		out.ExpectedIn = time.Duration(ahead / float64(perHour) * float64(time.Hour)).Round(time.Minute)
	}
	return out, nil
}
