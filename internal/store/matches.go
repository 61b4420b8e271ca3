package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/event"
)

// Match statuses.
const (
	MatchQueued   = "queued"
	MatchRunning  = "running"
	MatchFinished = "finished"
	MatchFailed   = "failed"
	MatchCanceled = "canceled"
)

// ErrMatchDone is returned when a match that already ended is started or
// recorded again: a retried or duplicated job must not play or record it
// twice.
var ErrMatchDone = errors.New("store: match already ended")

// MatchPlayerParams is one seat of a new match.
type MatchPlayerParams struct {
	BotID        int64
	BotVersionID int64
}

// MatchCreateParams are the fields of a new match; seats follow Players.
type MatchCreateParams struct {
	Game        string
	MapSize     int
	Seed        int64
	Kind        string
	Ranked      bool
	RequestedBy *int64
	Players     []MatchPlayerParams
	// PairID, when set, makes the match the second half of the pair whose
	// first half has that id (see MatchPair); the first half joins the pair
	// in the same transaction.
	PairID int64
	// DuelID, when set, makes the match game DuelGame (its place in the
	// schedule) of that duel.
	DuelID   int64
	DuelGame int
}

// MatchCreate records a queued match with its seats. The caller enqueues
// its job in the same transaction.
func (s *Store) MatchCreate(ctx context.Context, p MatchCreateParams) (*MatchRow, error) {
	if len(p.Players) == 0 {
		return nil, errors.New("store: create match: no players")
	}
	if p.Kind == "" {
		p.Kind = "challenge"
	}
	var id int64
	err := s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		err := st.db.QueryRow(ctx, `
			INSERT INTO matches (game, map_size, seed, kind, ranked, requested_by, pair_id, duel_id, duel_game)
			VALUES ($1, $2, $3, $4, $5, $6, nullif($7, 0), nullif($8, 0), CASE WHEN $8 <> 0 THEN $9::int END) RETURNING id`,
			p.Game, p.MapSize, p.Seed, p.Kind, p.Ranked, p.RequestedBy, p.PairID, p.DuelID, p.DuelGame).Scan(&id)
		if err != nil {
			return interpretError(err)
		}
		if p.PairID != 0 {
			tag, err := st.db.Exec(ctx, `UPDATE matches SET pair_id = id WHERE id = $1 AND pair_id IS NULL`, p.PairID)
			if err != nil {
				return interpretError(err)
			}
			if tag.RowsAffected() != 1 {
				return fmt.Errorf("first half %d of a pair: %w", p.PairID, ErrNotFound)
			}
		}
		for seat, pl := range p.Players {
			// The version must belong to the bot: a seat is never mislabelled.
			tag, err := st.db.Exec(ctx, `
				INSERT INTO match_players (match_id, seat, bot_id, bot_version_id)
				SELECT $1, $2, bot_id, id FROM bot_versions WHERE id = $4 AND bot_id = $3`,
				id, seat, pl.BotID, pl.BotVersionID)
			if err != nil {
				return interpretError(err)
			}
			if tag.RowsAffected() == 0 {
				return fmt.Errorf("seat %d: version %d of bot %d: %w", seat, pl.BotVersionID, pl.BotID, ErrNotFound)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: create match: %w", err)
	}
	return s.MatchDetailGet(ctx, id)
}

// MatchStart marks a match running for one more attempt and returns the
// attempt number. A match that already ended is ErrMatchDone: its job was
// duplicated or retried after the result landed.
func (s *Store) MatchStart(ctx context.Context, id int64) (int, error) {
	var attempt int
	err := s.db.QueryRow(ctx, `
		UPDATE matches SET status = 'running', attempt = attempt + 1, started_at = now()
		WHERE id = $1 AND status IN ('queued', 'running')
		RETURNING attempt`, id).Scan(&attempt)
	if err != nil {
		return 0, fmt.Errorf("store: start match %d: %w", id, s.matchEndedOr(ctx, id, err))
	}
	return attempt, nil
}

// matchEndedOr turns "no row updated" into ErrMatchDone when the match
// exists, else ErrNotFound.
func (s *Store) matchEndedOr(ctx context.Context, id int64, err error) error {
	err = interpretError(err)
	if !errors.Is(err, ErrNotFound) {
		return err
	}
	var exists bool
	if qerr := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM matches WHERE id = $1)`, id).Scan(&exists); qerr != nil {
		return qerr
	}
	if exists {
		return ErrMatchDone
	}
	return ErrNotFound
}

// MatchPlayerResult is one seat's result.
type MatchPlayerResult struct {
	Seat        int
	Key         string
	Points      int
	ShipsLeft   int
	ShotsFired  int
	ShotsLanded int
	Killed      bool
	// Outcome is win, loss or draw.
	Outcome string
	Rank    int
	Reason  string
	// Fault is crash, timeout or forfeit when the seat lost by its own
	// failure (see FaultOf); empty otherwise.
	Fault string
	// Log is the bot's own log of the match, for its owner.
	Log string
}

// MatchFinishParams are a played match's results.
type MatchFinishParams struct {
	ID        int64
	Rounds    int
	ReplayKey string
	Summary   json.RawMessage
	Players   []MatchPlayerResult
	// StopAfter is how many ranked matches in a row a bot may lose by a
	// fault before it leaves the ladder; 0 never stops one.
	StopAfter int
}

// MatchFinish records a played match's result. Only a queued or running
// match can finish; otherwise it is ErrMatchDone. The row lock of the
// update makes a concurrent duplicate wait and then see the match ended,
// so a result is recorded once.
func (s *Store) MatchFinish(ctx context.Context, p MatchFinishParams) error {
	return s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		var id int64
		err := st.db.QueryRow(ctx, `
			UPDATE matches SET status = 'finished', rounds = $2, replay_key = $3, summary = $4, error = '',
			       finished_at = now()
			WHERE id = $1 AND status IN ('queued', 'running') RETURNING id`,
			p.ID, p.Rounds, p.ReplayKey, p.Summary).Scan(&id)
		if err != nil {
			return fmt.Errorf("store: finish match %d: %w", p.ID, st.matchEndedOr(ctx, p.ID, err))
		}
		if err := st.matchPlayersFinish(ctx, p); err != nil {
			return err
		}
		for _, r := range p.Players {
			if err := st.countFault(ctx, p, r); err != nil {
				return err
			}
		}
		return nil
	})
}

// matchPlayersFinish records every seat's result in one statement.
func (s *Store) matchPlayersFinish(ctx context.Context, p MatchFinishParams) error {
	n := len(p.Players)
	seats, points, shipsLeft, shotsFired, shotsLanded, ranks := make([]int, n), make([]int, n), make([]int, n),
		make([]int, n), make([]int, n), make([]int, n)
	keys, outcomes, reasons, logs, faults := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n)
	killed := make([]bool, n)
	for i, r := range p.Players {
		seats[i], points[i], shipsLeft[i], shotsFired[i], shotsLanded[i], ranks[i] = r.Seat, r.Points, r.ShipsLeft,
			r.ShotsFired, r.ShotsLanded, r.Rank
		keys[i], outcomes[i], reasons[i], logs[i], faults[i] = r.Key, r.Outcome, r.Reason, r.Log, r.Fault
		killed[i] = r.Killed
	}
	tag, err := s.db.Exec(ctx, `
		UPDATE match_players p SET key = r.key, points = r.points, ships_left = r.ships_left,
		       shots_fired = r.shots_fired, shots_landed = r.shots_landed, killed = r.killed, outcome = r.outcome,
		       rank = r.rank, reason = r.reason, log = r.log, fault = nullif(r.fault, '')
		FROM unnest($2::int[], $3::text[], $4::int[], $5::int[], $6::int[], $7::int[], $8::bool[], $9::text[],
		            $10::int[], $11::text[], $12::text[], $13::text[])
		     AS r (seat, key, points, ships_left, shots_fired, shots_landed, killed, outcome, rank, reason, log, fault)
		WHERE p.match_id = $1 AND p.seat = r.seat`,
		p.ID, seats, keys, points, shipsLeft, shotsFired, shotsLanded, killed, outcomes, ranks, reasons, logs, faults)
	if err != nil {
		return fmt.Errorf("store: results of match %d: %w", p.ID, err)
	}
	if tag.RowsAffected() != int64(n) {
		return fmt.Errorf("store: results of match %d: %d of %d seats found: %w", p.ID, tag.RowsAffected(), n, ErrNotFound)
	}
	return nil
}

// countFault keeps the seat's bot's run of ranked matches lost by a
// fault: one more for a fault, back to zero for any other result. At
// StopAfter in a row the bot leaves the ladder, with the reason its page
// shows. House bots are the ladder's yardsticks and are never stopped;
// unranked matches (friendly challenges) leave the count alone.
func (s *Store) countFault(ctx context.Context, p MatchFinishParams, r MatchPlayerResult) error {
	reason := ""
	if p.StopAfter > 0 {
		reason = fmt.Sprintf("%d ranked matches in a row lost by a crash, a time-out or a forfeit; the last, match %d: %s",
			p.StopAfter, p.ID, r.Reason)
	}
	rows, err := s.db.Query(ctx, `
		UPDATE bots b SET
		       fault_streak = CASE WHEN $3 <> '' THEN b.fault_streak + 1 ELSE 0 END,
		       fault_stopped_at = CASE WHEN $3 <> '' AND $4 > 0 AND b.fault_streak + 1 >= $4 AND b.fault_stopped_at IS NULL
		                               THEN now() ELSE b.fault_stopped_at END,
		       fault_stop_reason = CASE WHEN $3 <> '' AND $4 > 0 AND b.fault_streak + 1 >= $4 AND b.fault_stopped_at IS NULL
		                                THEN $5 ELSE b.fault_stop_reason END
		FROM match_players x JOIN matches m ON m.id = x.match_id
		WHERE x.match_id = $1 AND x.seat = $2 AND b.id = x.bot_id AND m.ranked AND NOT b.house
		RETURNING b.id, b.name, b.game, b.owner_id, b.fault_streak, coalesce(b.fault_stopped_at = now(), false),
		          b.fault_stop_reason`,
		p.ID, r.Seat, r.Fault, p.StopAfter, reason)
	if err != nil {
		return fmt.Errorf("store: fault count of seat %d in match %d: %w", r.Seat, p.ID, err)
	}
	var evs []event.Event
	for rows.Next() {
		var bot event.Bot
		var owner int64
		var streak int
		var stopped bool
		var why string
		if err := rows.Scan(&bot.ID, &bot.Name, &bot.Game, &owner, &streak, &stopped, &why); err != nil {
			rows.Close()
			return fmt.Errorf("store: fault count of seat %d in match %d: %w", r.Seat, p.ID, err)
		}
		// The first crash or time-out after a clean run is news; the
		// next ones are the same news until the ladder stops the bot.
		if streak == 1 && (r.Fault == FaultCrash || r.Fault == FaultTimeout) {
			evs = append(evs, event.Event{UserID: owner, Type: event.BotFaulted,
				Data: event.Faulted{Bot: bot, MatchID: p.ID, Fault: r.Fault, Reason: r.Reason}})
		}
		if stopped {
			evs = append(evs, event.Event{UserID: owner, Type: event.BotPaused, Data: event.Paused{Bot: bot, Reason: why}})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: fault count of seat %d in match %d: %w", r.Seat, p.ID, err)
	}
	for _, ev := range evs {
		if err := s.EventPublish(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// Faults a seat can lose by, as match_players.fault records them.
const (
	FaultCrash   = "crash"
	FaultTimeout = "timeout"
	FaultForfeit = "forfeit"
)

// FaultOf reads how a seat lost by its own failure from the reason the
// rule set gave: the four rule sets word their failures differently but
// each names a crash, a time-out, a load failure, a forfeit or the
// harness killing a bot that did nothing useful. Wins, draws and losses
// in play are no fault.
func FaultOf(outcome, reason string) string {
	if outcome != "loss" {
		return ""
	}
	r := strings.ToLower(reason)
	switch {
	case strings.Contains(r, "timed out") || strings.Contains(r, "time limit") || strings.Contains(r, "timeout"):
		return FaultTimeout
	case strings.Contains(r, "crashed") || strings.Contains(r, "could not be loaded") || strings.Contains(r, "could not start"):
		return FaultCrash
	case strings.Contains(r, "forfeit") || strings.HasPrefix(r, "killed after") || strings.HasPrefix(r, "no ship:"):
		return FaultForfeit
	}
	return ""
}

// FaultPlatform marks a match that failed because of the platform.
const FaultPlatform = "platform"

// MatchFail records that a match could not be played; msg is shown to the
// players. fault is FaultPlatform when the platform failed it (a worker
// lost, a build artifact missing, a sandbox that refused), empty when
// nobody's fault stopped it (a seat without a built version). A match that
// already ended is ErrMatchDone.
func (s *Store) MatchFail(ctx context.Context, id int64, fault, msg string) error {
	var got int64
	err := s.db.QueryRow(ctx, `
		UPDATE matches SET status = 'failed', fault = $3, error = $2, finished_at = now()
		WHERE id = $1 AND status IN ('queued', 'running') RETURNING id`, id, msg, fault).Scan(&got)
	if err != nil {
		return fmt.Errorf("store: fail match %d: %w", id, s.matchEndedOr(ctx, id, err))
	}
	return nil
}

// MatchCancel cancels a match that has not ended.
func (s *Store) MatchCancel(ctx context.Context, id int64) error {
	var got int64
	err := s.db.QueryRow(ctx, `
		UPDATE matches SET status = 'canceled', finished_at = now()
		WHERE id = $1 AND status IN ('queued', 'running') RETURNING id`, id).Scan(&got)
	if err != nil {
		return fmt.Errorf("store: cancel match %d: %w", id, s.matchEndedOr(ctx, id, err))
	}
	return nil
}

// MatchSeat is what the worker needs to run one seat.
type MatchSeat struct {
	Seat         int
	BotID        int64
	BotName      string
	BotVersionID int64
	ArtifactKey  string
	BuildStatus  string
}

// MatchSeats lists a match's seats with their versions' build artifacts.
func (s *Store) MatchSeats(ctx context.Context, matchID int64) ([]MatchSeat, error) {
	rows, err := s.db.Query(ctx, `
		SELECT p.seat, p.bot_id, b.name, p.bot_version_id, v.artifact_key, v.build_status
		FROM match_players p JOIN bots b ON b.id = p.bot_id JOIN bot_versions v ON v.id = p.bot_version_id
		WHERE p.match_id = $1 ORDER BY p.seat`, matchID)
	if err != nil {
		return nil, fmt.Errorf("store: seats of match %d: %w", matchID, err)
	}
	seats, err := pgx.CollectRows(rows, pgx.RowToStructByPos[MatchSeat])
	if err != nil {
		return nil, fmt.Errorf("store: seats of match %d: %w", matchID, err)
	}
	return seats, nil
}

// MatchKind returns a match's kind (ladder, placement, challenge, battle),
// which orders the queue.
func (s *Store) MatchKind(ctx context.Context, id int64) (string, error) {
	var kind string
	if err := s.db.QueryRow(ctx, `SELECT kind FROM matches WHERE id = $1`, id).Scan(&kind); err != nil {
		return "", fmt.Errorf("store: kind of match %d: %w", id, interpretError(err))
	}
	return kind, nil
}

// QueueDepth counts matches waiting to be played, by kind.
func (s *Store) QueueDepth(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.Query(ctx, `SELECT kind, count(*) FROM matches WHERE status IN ('queued', 'running') GROUP BY kind`)
	if err != nil {
		return nil, fmt.Errorf("store: queue depth: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, fmt.Errorf("store: queue depth: %w", err)
		}
		out[k] = n
	}
	return out, rows.Err()
}

// AdminMatchRequeue puts a queued or running match back to queued so a
// fresh job plays it (a job lost with its worker). Ended matches give
// ErrMatchDone: rerun them instead.
func (s *Store) AdminMatchRequeue(ctx context.Context, id int64) error {
	tag, err := s.db.Exec(ctx, `
		UPDATE matches SET status = 'queued', started_at = NULL
		WHERE id = $1 AND status IN ('queued', 'running')`, id)
	if err != nil {
		return fmt.Errorf("store: requeue match %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: requeue match %d: %w", id, s.matchEndedOr(ctx, id, ErrNotFound))
	}
	return nil
}

// AdminMatchRerun records a new, unranked copy of a match: the same game,
// map, seed, seats and bot versions, so it replays the same conditions.
// The caller enqueues the new match in the same transaction.
func (s *Store) AdminMatchRerun(ctx context.Context, id, actorID int64) (int64, error) {
	seats, err := s.MatchSeats(ctx, id)
	if err != nil {
		return 0, err
	}
	m, err := s.MatchDetailGet(ctx, id)
	if err != nil {
		return 0, err
	}
	players := make([]MatchPlayerParams, len(seats))
	for i, st := range seats {
		players[i] = MatchPlayerParams{BotID: st.BotID, BotVersionID: st.BotVersionID}
	}
	kind := m.Kind
	if kind == "ladder" || kind == "placement" {
		// A rerun never changes ratings, and an unranked ladder match
		// would confuse the matchmaker's counts.
		kind = "challenge"
	}
	nm, err := s.MatchCreate(ctx, MatchCreateParams{
		Game: m.Game, MapSize: m.MapSize, Seed: m.Seed, Kind: kind, Ranked: false, RequestedBy: &actorID, Players: players,
	})
	if err != nil {
		return 0, fmt.Errorf("store: rerun match %d: %w", id, err)
	}
	return nm.ID, nil
}

// AdminRecentMatches lists the newest matches that are waiting, running
// or failed: what an operator may need to act on.
func (s *Store) AdminRecentMatches(ctx context.Context, limit int) ([]MatchRow, error) {
	rows, err := s.db.Query(ctx, `
		SELECT id, game, kind, status, coalesce(error, ''), created_at FROM matches
		WHERE status IN ('queued', 'running', 'failed')
		ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: recent matches: %w", err)
	}
	defer rows.Close()
	var out []MatchRow
	for rows.Next() {
		var m MatchRow
		if err := rows.Scan(&m.ID, &m.Game, &m.Kind, &m.Status, &m.Error, &m.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: recent matches: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
