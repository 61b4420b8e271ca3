package store

import (
	"context"
	"fmt"
	"time"
)

// RatingEventRow is one recorded rating change: a bot's rating, deviation
// and volatility before and after one rating period (a match, or a pair
// recorded on its closing half).
type RatingEventRow struct {
	ID        int64
	MatchID   int64
	BotID     int64
	BotName   string
	Ladder    string
	Method    string
	Before    Rating
	After     Rating
	VolBefore float64
	VolAfter  float64
	CreatedAt time.Time
}

const ratingEventSelect = `
	SELECT e.id, e.match_id, e.bot_id, b.name, e.ladder, e.method,
	       e.rating_before, e.deviation_before, e.rating_after, e.deviation_after,
	       e.volatility_before, e.volatility_after, e.created_at
	FROM rating_events e JOIN bots b ON b.id = e.bot_id`

func (s *Store) ratingEvents(ctx context.Context, what, q string, args ...any) ([]RatingEventRow, error) {
	var out []RatingEventRow
	err := s.eachRatingEvent(ctx, what, q, func(e *RatingEventRow) error {
		out = append(out, *e)
		return nil
	}, args...)
	return out, err
}

// eachRatingEvent runs ratingEventSelect+q and hands fn each event as it
// is read.
func (s *Store) eachRatingEvent(ctx context.Context, what, q string, fn func(*RatingEventRow) error, args ...any) error {
	rows, err := s.db.Query(ctx, ratingEventSelect+q, args...)
	if err != nil {
		return fmt.Errorf("store: rating events of %s: %w", what, err)
	}
	defer rows.Close()
	var e RatingEventRow
	for rows.Next() {
		if err := rows.Scan(&e.ID, &e.MatchID, &e.BotID, &e.BotName, &e.Ladder, &e.Method,
			&e.Before.Rating, &e.Before.Deviation, &e.After.Rating, &e.After.Deviation,
			&e.VolBefore, &e.VolAfter, &e.CreatedAt); err != nil {
			return fmt.Errorf("store: rating events of %s: %w", what, err)
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: rating events of %s: %w", what, err)
	}
	return nil
}

// MatchRatingEvents returns the rating changes of a match: its own, or for
// a half of a pair the pair's, recorded on whichever half closed it.
func (s *Store) MatchRatingEvents(ctx context.Context, m *MatchRow) ([]RatingEventRow, error) {
	if m.PairID == nil {
		return s.ratingEvents(ctx, fmt.Sprintf("match %d", m.ID), ` WHERE e.match_id = $1 ORDER BY e.id`, m.ID)
	}
	return s.ratingEvents(ctx, fmt.Sprintf("pair %d", *m.PairID), `
		WHERE e.match_id IN (SELECT id FROM matches WHERE pair_id = $1) ORDER BY e.id`, *m.PairID)
}

// MatchPairHalves returns the ids of the halves of a pair, in order.
func (s *Store) MatchPairHalves(ctx context.Context, pairID int64) ([]int64, error) {
	rows, err := s.db.Query(ctx, `SELECT id FROM matches WHERE pair_id = $1 ORDER BY id`, pairID)
	if err != nil {
		return nil, fmt.Errorf("store: halves of pair %d: %w", pairID, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: halves of pair %d: %w", pairID, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// RatingEventsDay returns a ladder's rating events of one UTC day, in the
// order they were applied.
func (s *Store) RatingEventsDay(ctx context.Context, ladder string, day time.Time) ([]RatingEventRow, error) {
	start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	return s.ratingEvents(ctx, fmt.Sprintf("%s on %s", ladder, start.Format(time.DateOnly)), `
		WHERE e.ladder = $1 AND e.created_at >= $2 AND e.created_at < $3 ORDER BY e.created_at, e.id`,
		ladder, start, start.AddDate(0, 0, 1))
}
