package competition

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/duel"
	"github.com/broadside/broadside/internal/event"
	"github.com/broadside/broadside/internal/store"
)

// Duel sizes: a duel plays at most DuelMaxGames, DuelDefaultGames when its
// owner names no number, always an even number (its games are pairs).
const (
	DuelDefaultGames = 40
	DuelMaxGames     = 200
	// duelAhead is how many of a duel's games may wait or run at once
	// while its verdict is open: two pairs, so a few workers share them,
	// and no more than the test may need.
	duelAhead = 4
)

// DuelParams start a duel: the owner's bot and version (A) against an
// opponent (B). A zero version is the bot's playing version; a zero
// opponent is the same bot.
type DuelParams struct {
	UserID          int64
	BotID           int64
	Version         int
	OpponentBotID   int64
	OpponentVersion int
	// MaxGames bounds the games; zero is DuelDefaultGames.
	MaxGames int
}

// StartDuel records a duel of one of the user's bot versions against
// another of their versions, another of their bots or a house bot of the
// same game, and queues its first games. It is refused with a clear
// message when a side cannot play, when the two sides are one version, or
// when the user already has a duel running.
func (s *Service) StartDuel(ctx context.Context, p DuelParams) (int64, error) {
	if p.MaxGames == 0 {
		p.MaxGames = DuelDefaultGames
	}
	if p.MaxGames < 2 || p.MaxGames > DuelMaxGames || p.MaxGames%2 != 0 {
		return 0, refuse("A duel plays an even number of games from 2 to %d (each seed twice, the seats swapped).", DuelMaxGames)
	}
	a, err := s.store.BotGetByID(ctx, p.BotID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, refuseAs(NotFound, "There is no such bot.")
	} else if err != nil {
		return 0, err
	}
	if a.OwnerID != p.UserID {
		return 0, refuseAs(Forbidden, "You can only start duels of your own bots.")
	}
	if p.OpponentBotID == 0 {
		p.OpponentBotID = a.ID
	}
	b, err := s.store.BotGetByID(ctx, p.OpponentBotID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, refuseAs(NotFound, "The opponent bot does not exist.")
	} else if err != nil {
		return 0, err
	}
	switch {
	case b.OwnerID != p.UserID && !b.House:
		return 0, refuseAs(Forbidden, "A duel is against one of your own bots or a house bot; %s is neither.", b.Name)
	case a.Game != b.Game:
		return 0, refuse("%s plays %s and %s plays %s: a duel needs two bots of the same game.", a.Name, a.Game, b.Name, b.Game)
	case a.Disabled || b.Disabled:
		return 0, refuseAs(Conflict, "A disabled bot cannot duel.")
	}
	av, err := s.duelVersion(ctx, a, p.Version)
	if err != nil {
		return 0, err
	}
	if b.House && p.OpponentVersion != 0 {
		return 0, refuse("A house bot duels with its playing version only.")
	}
	bv, err := s.duelVersion(ctx, b, p.OpponentVersion)
	if err != nil {
		return 0, err
	}
	if av.ID == bv.ID {
		return 0, refuse("A and B are the same version (%s version %d); choose another version or bot to duel against.", a.Name, av.Number)
	}
	seed, err := randomSeed()
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		id, err = st.DuelCreate(ctx, store.DuelCreateParams{
			OwnerID: p.UserID, Game: a.Game, MapSize: s.mapSize(a.Game),
			ABotID: a.ID, AVersionID: av.ID, BBotID: b.ID, BVersionID: bv.ID,
			MasterSeed: seed, MaxGames: p.MaxGames, Delta: duel.DefaultTest.Delta,
		})
		if err != nil {
			return err
		}
		d, err := st.DuelGetForUpdate(ctx, id)
		if err != nil {
			return err
		}
		_, err = advanceDuel(ctx, st, tx, s.queue, d)
		return err
	})
	if errors.Is(err, store.ErrConflict) {
		return 0, refuseAs(Conflict, "You already have a duel running; wait for its verdict before starting another.")
	}
	if err != nil {
		return 0, fmt.Errorf("start duel of bot %d against bot %d: %w", a.ID, b.ID, err)
	}
	s.logger.InfoContext(ctx, "duel started", "duel_id", id, "user_id", p.UserID,
		"a_version_id", av.ID, "b_version_id", bv.ID, "max_games", p.MaxGames, "master_seed", seed)
	return id, nil
}

// duelVersion is bot's version number n (its playing version when n is
// 0), which must be built.
func (s *Service) duelVersion(ctx context.Context, b *store.Bot, n int) (*store.BotVersionRow, error) {
	versions, err := s.store.BotVersionRows(ctx, b.ID)
	if err != nil {
		return nil, err
	}
	for i, v := range versions {
		if (n == 0 && b.CurrentVersionID != nil && v.ID == *b.CurrentVersionID) || (n != 0 && v.Number == n) {
			if v.BuildStatus != store.BuildOK {
				return nil, refuseAs(Conflict, "%s version %d cannot play: its build has not succeeded.", b.Name, v.Number)
			}
			return &versions[i], nil
		}
	}
	if n == 0 {
		return nil, refuseAs(Conflict, "%s cannot play: it has no successfully built version yet.", b.Name)
	}
	return nil, refuseAs(NotFound, "%s has no version %d.", b.Name, n)
}

// AdvanceDuel counts a finished (or failed) game of a duel, in the
// transaction that records it: it updates the duel's score, queues its
// next games while the verdict is open, and records the verdict once the
// sequential test decides or the games run out. It returns the duel's id
// when this call ended the duel (see the worker's duel-finished hook),
// else zero; a match of no duel is left alone.
func AdvanceDuel(ctx context.Context, tx pgx.Tx, queue Enqueuer, matchID int64) (ended int64, err error) {
	st := store.NewTx(tx)
	id, err := st.MatchDuelID(ctx, matchID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	d, err := st.DuelGetForUpdate(ctx, id)
	if err != nil {
		return 0, err
	}
	done, err := advanceDuel(ctx, st, tx, queue, d)
	if err != nil || !done {
		return 0, err
	}
	return id, nil
}

// DuelTally is a duel's games counted so far, in schedule order: pairs
// both of whose games are finished, up to the pair on which the test
// decided.
type DuelTally struct {
	Score    duel.Score
	Decision duel.Decision
	// Counted is how many games the score holds.
	Counted int
	// Failed is the first game in the counted order that could not be
	// played, nil when none.
	Failed *store.DuelGame
}

// TallyDuel counts a duel's games with internal/duel's sequential test, as
// `battleship duel --paired` counts them: pair by pair in schedule order,
// stopping at the first decision.
func TallyDuel(d *store.Duel, games []store.DuelGame) DuelTally {
	sched := duelSchedule(d)
	test := duel.DefaultTest
	test.Delta = d.Delta
	sprt := duel.NewSPRT(test)
	var t DuelTally
	for n := 0; n+2 <= len(games) && t.Decision == duel.Continue; n += 2 {
		pair := games[n : n+2]
		var s duel.Score
		for i, g := range pair {
			if g.Index != n+i {
				return t // a gap: the schedule was not followed, count no further
			}
			switch g.Status {
			case store.MatchFinished:
			case store.MatchFailed, store.MatchCanceled:
				t.Failed = &pair[i]
				return t
			default:
				return t
			}
			s = s.Add(outcomeOfA(g, sched[g.Index].SeatA))
		}
		t.Score = t.Score.Add(s)
		t.Counted += 2
		t.Decision = sprt.Observe(s)
	}
	return t
}

// outcomeOfA scores one finished game from A's side.
func outcomeOfA(g store.DuelGame, seatA int) duel.Score {
	switch g.Outcomes[seatA] {
	case "win":
		return duel.Score{WinsA: 1}
	case "loss":
		if g.Outcomes[1-seatA] == "win" {
			return duel.Score{WinsB: 1}
		}
	}
	// A draw, or both seats lost (no winner): half a win each.
	return duel.Score{Draws: 1}
}

// duelSchedule is the duel's games as internal/duel draws them from the
// master seed: each seed twice, A in seat 0 then in seat 1.
func duelSchedule(d *store.Duel) []duel.Game {
	return duel.Schedule(duel.Config{Games: d.MaxGames, Paired: true, Seed: d.MasterSeed})
}

// advanceDuel brings a running duel, locked by the caller, up to date
// with its games; it reports whether the duel ended.
func advanceDuel(ctx context.Context, st *store.Store, tx pgx.Tx, queue Enqueuer, d *store.Duel) (bool, error) {
	if d.Status != store.DuelRunning {
		return false, nil
	}
	games, err := st.DuelGames(ctx, d.ID)
	if err != nil {
		return false, err
	}
	t := TallyDuel(d, games)
	up := store.DuelUpdateParams{ID: d.ID, Status: store.DuelRunning,
		WinsA: t.Score.WinsA, WinsB: t.Score.WinsB, Draws: t.Score.Draws}
	switch {
	case t.Failed != nil && t.Failed.Status == store.MatchCanceled:
		up.Status = store.DuelFailed
		up.Error = fmt.Sprintf("Game %d (match #%d) was canceled, so the duel stopped.", t.Failed.Index+1, t.Failed.MatchID)
	case t.Failed != nil:
		up.Status = store.DuelFailed
		up.Error = fmt.Sprintf("Game %d (match #%d) could not be played, so the duel stopped. %s",
			t.Failed.Index+1, t.Failed.MatchID, t.Failed.Error)
	case t.Decision != duel.Continue || t.Counted >= d.MaxGames:
		up.Status, up.Verdict = store.DuelFinished, t.Decision.Verdict()
	}
	if up.Status != store.DuelRunning {
		if _, err := st.DuelCancelQueued(ctx, d.ID); err != nil {
			return false, err
		}
		if err := st.DuelUpdate(ctx, up); err != nil {
			return false, err
		}
		return true, st.EventPublish(ctx, duelEnded(d, up, t.Score))
	}
	sched := duelSchedule(d)
	for n := len(games); n < d.MaxGames && n-t.Counted < duelAhead; n++ {
		g := sched[n]
		seats := make([]store.MatchPlayerParams, 2)
		seats[g.SeatA] = store.MatchPlayerParams{BotID: d.ABotID, BotVersionID: d.AVersionID}
		seats[1-g.SeatA] = store.MatchPlayerParams{BotID: d.BBotID, BotVersionID: d.BVersionID}
		owner := d.OwnerID
		_, err := createMatch(ctx, st, tx, queue, store.MatchCreateParams{
			Game: d.Game, MapSize: d.MapSize, Seed: g.Seed, Kind: "duel", RequestedBy: &owner,
			Players: seats, DuelID: d.ID, DuelGame: n,
		})
		if err != nil {
			return false, fmt.Errorf("duel %d game %d: %w", d.ID, n+1, err)
		}
	}
	return false, st.DuelUpdate(ctx, up)
}

// duelEnded is the duel.finished event of d, ended as up says.
func duelEnded(d *store.Duel, up store.DuelUpdateParams, s duel.Score) event.Event {
	lo, hi := duel.Wilson95(s)
	return event.NewDuelFinished(d.OwnerID, event.Duel{
		DuelID: d.ID,
		Bot:    event.Bot{ID: d.ABotID, Name: d.ABotName, Game: d.Game}, BotVersion: d.AVersion,
		Opponent: event.Bot{ID: d.BBotID, Name: d.BBotName, Game: d.Game}, OpponentVersion: d.BVersion,
		Status: up.Status, Verdict: up.Verdict, Error: up.Error,
		Games: s.Games(), WinsA: s.WinsA, WinsB: s.WinsB, Draws: s.Draws, WinRateA: s.Rate(), CI95: [2]float64{lo, hi},
	})
}

// DuelGameView is one game of a duel as its page lists it.
type DuelGameView struct {
	store.DuelGame
	// SeatA is A's seat in the game.
	SeatA int
	// Result is "A", "B" or "draw" once the game finished, empty before.
	Result string
	// Counted says the game is in the duel's score.
	Counted bool
}

// DuelGamesOf pairs a duel's games with A's seat and result.
func DuelGamesOf(d *store.Duel, games []store.DuelGame) []DuelGameView {
	sched := duelSchedule(d)
	counted := d.WinsA + d.WinsB + d.Draws
	out := make([]DuelGameView, 0, len(games))
	for _, g := range games {
		v := DuelGameView{DuelGame: g, Counted: g.Index < counted}
		if g.Index < len(sched) {
			v.SeatA = sched[g.Index].SeatA
		}
		if g.Status == store.MatchFinished {
			switch s := outcomeOfA(g, v.SeatA); {
			case s.WinsA > 0:
				v.Result = "A"
			case s.WinsB > 0:
				v.Result = "B"
			default:
				v.Result = "draw"
			}
		}
		out = append(out, v)
	}
	return out
}

// DuelScore is a duel's counted games as internal/duel tallies them, for
// its win rate and interval.
func DuelScore(d *store.Duel) duel.Score {
	return duel.Score{WinsA: d.WinsA, WinsB: d.WinsB, Draws: d.Draws}
}
