package competition

import (
	"context"
	"time"

	"github.com/broadside/broadside/internal/ladder"
	"github.com/broadside/broadside/internal/store"
)

// Ladder states of one bot, as its page shows them.
const (
	LadderPlaying = "playing" // a ladder match is queued or running
	LadderWaiting = "waiting" // in the queue for its next match
	LadderResting = "resting" // not in the queue: today's limit reached, or between games
	LadderHouse   = "house"   // a yardstick: plays only when chosen
	LadderPaused  = "paused"  // its owner took it off the ladder
	LadderStopped = "stopped" // too many ranked matches in a row lost by a fault
	LadderOff     = "off"     // disabled, or no built version
)

// BotLadder is what a bot's page says about its next ladder game.
type BotLadder struct {
	State string
	// MatchID is the queued or running ladder match (State playing);
	// MatchRunning tells which.
	MatchID      int64
	MatchRunning bool
	// Position is the bot's place in the queue (1 = next) of Waiting bots.
	Position, Waiting int
	// PlacementLeft counts the placement matches the version still owes.
	PlacementLeft int
	// GamesToday counts the bot's ladder games of the current UTC day, of
	// at most DayLimit; AtDayLimit says it has used them all, and
	// DayResetIn is the time until midnight UTC, when the count restarts.
	GamesToday, DayLimit int
	AtDayLimit           bool
	DayResetIn           time.Duration
	// ExpectedIn estimates the wait for the next game from the last
	// hour's ladder throughput and the matchmaker's next run; zero when
	// there is nothing to go by.
	ExpectedIn time.Duration
	// NextTickIn is the time until the matchmaker's next run.
	NextTickIn time.Duration
	// StopReason says why a Stopped bot left the ladder.
	StopReason string
	// New is a resting bot built since the matchmaker last ran: its first
	// games come at the next run.
	New bool
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
	st, err := s.store.LadderBotState(ctx, botID, LadderTickJob)
	if err != nil {
		return nil, err
	}
	bot := &st.Bot
	out := &BotLadder{State: LadderOff}
	if bot.Disabled || bot.CurrentVersionID == nil {
		return out, nil
	}
	if bot.Paused {
		out.State = LadderPaused
		return out, nil
	}
	if bot.FaultStoppedAt != nil {
		out.State, out.StopReason = LadderStopped, bot.FaultStopReason
		return out, nil
	}
	if !bot.House {
		out.PlacementLeft = max(0, ladder.PlacementGames-st.VersionGames)
	}
	tick := s.ladderTickOf(st.Tick)
	out.NextTickIn = tick.in
	now := s.now().UTC()
	out.GamesToday, out.DayLimit = st.GamesToday, s.Ladder.MaxGamesPerDay
	out.DayResetIn = time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Sub(now).Round(time.Second)
	switch {
	case st.MatchID != 0:
		out.State, out.MatchID, out.MatchRunning = LadderPlaying, st.MatchID, st.MatchStatus == "running"
		return out, nil
	case bot.House:
		out.State = LadderHouse
		return out, nil
	}
	row := st.Queue
	if row == nil {
		out.State = LadderResting
		// Built since the matchmaker last looked: it will be seen next run.
		out.New = st.BuiltAt != nil && (tick.lastStart == nil || st.BuiltAt.After(*tick.lastStart))
		// Otherwise it is out of games for today, or it finished a game
		// since the matchmaker last saved the queue.
		out.AtDayLimit = !out.New && out.GamesToday >= out.DayLimit
		return out, nil
	}
	waiting, err := s.store.LadderQueueDepth(ctx, bot.Game)
	if err != nil {
		return nil, err
	}
	out.State, out.Position, out.Waiting = LadderWaiting, row.Position, waiting
	perHour, err := s.store.LadderFinishedSince(ctx, bot.Game, s.now().Add(-time.Hour))
	if err != nil {
		return nil, err
	}
	pending, err := s.store.LadderPending(ctx, bot.Game)
	if err != nil {
		return nil, err
	}
	out.ExpectedIn = out.NextTickIn
	if perHour > 0 {
		// Each match takes two bots from the queue; the matches queued or
		// running finish first. No game starts before the next tick.
		ahead := float64(row.Position-1)/2 + float64(pending)
		out.ExpectedIn = max(out.NextTickIn, time.Duration(ahead/float64(perHour)*float64(time.Hour)).Round(time.Second))
	}
	return out, nil
}

// LadderTickJob names the matchmaker's periodic job (River's job kind).
const LadderTickJob = "ladder_tick"

// ladderTick is when the matchmaker last started and runs next.
type ladderTick struct {
	lastStart *time.Time
	in        time.Duration // until the next run; zero when unknown or due
}

// ladderTickOf reads the matchmaker's periodic run as the workers
// recorded it; run is nil when none has registered it.
func (s *Service) ladderTickOf(run *store.PeriodicRun) ladderTick {
	if run == nil {
		return ladderTick{}
	}
	return ladderTick{lastStart: run.LastStartedAt, in: max(0, run.NextRun().Sub(s.now())).Round(time.Second)}
}
