package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/event"
)

// Challenge is one bot owner's invitation to a match between two bots.
type Challenge struct {
	ID                int64
	ChallengerID      int64
	ChallengerName    string
	ChallengerBotID   int64
	ChallengerBotName string
	ChallengedBotID   int64
	ChallengedBotName string
	ChallengedOwnerID int64
	ChallengedOwner   string
	Status            string
	Ranked            bool
	MatchID           *int64
	MatchStatus       string
	// Winner is the winning bot's name once the match finished, and
	// WinnerBotID its id; empty and zero for a draw or an unfinished match.
	Winner      string
	WinnerBotID int64
	CreatedAt   time.Time
	RespondedAt *time.Time
}

// ChallengeCreateParams are the fields of a new challenge.
type ChallengeCreateParams struct {
	ChallengerID    int64
	ChallengerBotID int64
	ChallengedBotID int64
	Ranked          bool
}

// ChallengeCreate records a pending challenge and tells the challenged
// bot's owner of it.
func (s *Store) ChallengeCreate(ctx context.Context, p ChallengeCreateParams) (int64, error) {
	var id int64
	err := s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		err := st.db.QueryRow(ctx, `
			INSERT INTO challenges (challenger_id, challenger_bot_id, challenged_bot_id, ranked)
			VALUES ($1, $2, $3, $4) RETURNING id`,
			p.ChallengerID, p.ChallengerBotID, p.ChallengedBotID, p.Ranked).Scan(&id)
		if err != nil {
			return interpretError(err)
		}
		c, err := st.ChallengeGetByID(ctx, id)
		if err != nil {
			return err
		}
		return st.EventPublish(ctx, event.Event{UserID: c.ChallengedOwnerID, Type: event.ChallengeReceived, Data: event.Challenge{
			ChallengeID: c.ID, Ranked: c.Ranked,
			Bot:      event.Bot{ID: c.ChallengedBotID, Name: c.ChallengedBotName},
			Opponent: event.Bot{ID: c.ChallengerBotID, Name: c.ChallengerBotName}, OpponentBy: c.ChallengerName,
		}})
	})
	if err != nil {
		return 0, fmt.Errorf("store: create challenge: %w", err)
	}
	return id, nil
}

const challengeSelect = `
	SELECT c.id, c.challenger_id, cu.username, c.challenger_bot_id, cb.name,
	       c.challenged_bot_id, db.name, db.owner_id, du.username,
	       c.status, c.ranked, c.match_id, coalesce(m.status, ''),
	       coalesce(w.name, ''), coalesce(w.id, 0),
	       c.created_at, c.responded_at
	FROM challenges c
	JOIN users cu ON cu.id = c.challenger_id
	JOIN bots cb ON cb.id = c.challenger_bot_id
	JOIN bots db ON db.id = c.challenged_bot_id
	JOIN users du ON du.id = db.owner_id
	LEFT JOIN matches m ON m.id = c.match_id
	LEFT JOIN LATERAL (SELECT wb.id, wb.name FROM match_players wp JOIN bots wb ON wb.id = wp.bot_id
	                   WHERE wp.match_id = c.match_id AND wp.outcome = 'win' ORDER BY wp.seat LIMIT 1) w ON true`

func scanChallenge(row interface{ Scan(...any) error }) (*Challenge, error) {
	var c Challenge
	err := row.Scan(&c.ID, &c.ChallengerID, &c.ChallengerName, &c.ChallengerBotID, &c.ChallengerBotName,
		&c.ChallengedBotID, &c.ChallengedBotName, &c.ChallengedOwnerID, &c.ChallengedOwner,
		&c.Status, &c.Ranked, &c.MatchID, &c.MatchStatus, &c.Winner, &c.WinnerBotID, &c.CreatedAt, &c.RespondedAt)
	if err != nil {
		return nil, interpretError(err)
	}
	return &c, nil
}

// ChallengeGetByID returns a challenge.
func (s *Store) ChallengeGetByID(ctx context.Context, id int64) (*Challenge, error) {
	c, err := scanChallenge(s.db.QueryRow(ctx, challengeSelect+` WHERE c.id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("store: get challenge %d: %w", id, err)
	}
	return c, nil
}

// ChallengeListForUser lists the challenges a user sent or received, newest first.
func (s *Store) ChallengeListForUser(ctx context.Context, userID int64, limit int) ([]Challenge, error) {
	rows, err := s.db.Query(ctx, challengeSelect+`
		WHERE c.challenger_id = $1 OR db.owner_id = $1
		ORDER BY c.created_at DESC, c.id DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list challenges of user %d: %w", userID, err)
	}
	defer rows.Close()
	var out []Challenge
	for rows.Next() {
		c, err := scanChallenge(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list challenges of user %d: %w", userID, err)
		}
		out = append(out, *c)
	}
	return out, rows.Err()
}

// ChallengeRespond moves a pending challenge to status (accepted, declined
// or canceled), linking the match when one was created, and tells the
// challenger of an acceptance or a refusal. It returns ErrNotFound when
// the challenge is no longer pending, so two answers cannot both win.
func (s *Store) ChallengeRespond(ctx context.Context, id int64, status string, matchID *int64) error {
	err := s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		tag, err := st.db.Exec(ctx, `
			UPDATE challenges SET status = $2, match_id = $3, responded_at = now()
			WHERE id = $1 AND status = 'pending'`, id, status, matchID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		if status != "accepted" && status != "declined" {
			return nil
		}
		c, err := st.ChallengeGetByID(ctx, id)
		if err != nil {
			return err
		}
		return st.EventPublish(ctx, event.Event{UserID: c.ChallengerID, Type: event.ChallengeAnswered, Data: event.Challenge{
			ChallengeID: c.ID, Ranked: c.Ranked,
			Bot:      event.Bot{ID: c.ChallengerBotID, Name: c.ChallengerBotName},
			Opponent: event.Bot{ID: c.ChallengedBotID, Name: c.ChallengedBotName}, OpponentBy: c.ChallengedOwner,
			Answer: status, MatchID: matchID,
		}})
	})
	if err != nil {
		return fmt.Errorf("store: answer challenge %d: %w", id, err)
	}
	return nil
}

// ChallengeCountSince counts the challenges a user sent since a time, for
// the rate limit.
func (s *Store) ChallengeCountSince(ctx context.Context, userID int64, since time.Time) (int, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT count(*) FROM challenges WHERE challenger_id = $1 AND created_at >= $2`,
		userID, since).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count challenges of user %d: %w", userID, err)
	}
	return n, nil
}

// UserAutoAccept reports whether a user accepts challenges automatically.
func (s *Store) UserAutoAccept(ctx context.Context, userID int64) (bool, error) {
	var v bool
	err := s.db.QueryRow(ctx, `SELECT auto_accept_challenges FROM users WHERE id = $1`, userID).Scan(&v)
	if err != nil {
		return false, fmt.Errorf("store: auto-accept of user %d: %w", userID, interpretError(err))
	}
	return v, nil
}

// UserSetAutoAccept sets whether a user accepts challenges automatically.
func (s *Store) UserSetAutoAccept(ctx context.Context, userID int64, v bool) error {
	if _, err := s.db.Exec(ctx, `UPDATE users SET auto_accept_challenges = $2 WHERE id = $1`, userID, v); err != nil {
		return fmt.Errorf("store: set auto-accept of user %d: %w", userID, err)
	}
	return nil
}
