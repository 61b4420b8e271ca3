package store

import (
	"context"
	"fmt"
	"time"
)

// The Each functions below read their rows in one query and hand them to
// fn one at a time as the database sends them, so an export of a million
// matches is written out as it is read and never held in memory. fn gets
// the same row value each time, filled afresh: it must not keep it.

// ExportMatchSeat is one player of a finished match, as the match export
// writes it: the match's fields repeat on each of its players' rows.
type ExportMatchSeat struct {
	MatchID       int64
	Game          string
	Kind          string
	Ranked        bool
	Seed          int64
	MapSize       int
	Rounds        int
	CreatedAt     time.Time
	FinishedAt    *time.Time
	Seat          int
	BotID         int64
	BotName       string
	Owner         string
	VersionNumber int
	Outcome       string
	Rank          int
	Points        int
	ShipsLeft     int
	ShotsFired    int
	ShotsLanded   int
	Fault         string
}

// ExportMatchParams choose the matches of an export: a game's, or a
// battle's.
type ExportMatchParams struct {
	Game     string
	BattleID int64
	// WithHidden keeps the games of battles whose results are hidden and
	// not yet released (organisers only), as in MatchListParams.
	WithHidden bool
}

// ExportMatchesEach hands fn every player of every finished match of a
// game or a battle, by match id then seat.
func (s *Store) ExportMatchesEach(ctx context.Context, p ExportMatchParams, fn func(*ExportMatchSeat) error) error {
	what, cond, arg := "game "+p.Game, "m.game = $1", any(p.Game)
	if p.BattleID != 0 {
		what, cond, arg = fmt.Sprintf("battle %d", p.BattleID), "m.id IN (SELECT match_id FROM battle_games WHERE battle_id = $1)", p.BattleID
	}
	rows, err := s.db.Query(ctx, `
		SELECT m.id, m.game, m.kind, m.ranked, m.seed, m.map_size, m.rounds, m.created_at, m.finished_at,
		       mp.seat, mp.bot_id, b.name, u.username, v.number, mp.outcome, mp.rank, mp.points,
		       mp.ships_left, mp.shots_fired, mp.shots_landed, coalesce(mp.fault, '')
		FROM matches m
		JOIN match_players mp ON mp.match_id = m.id
		JOIN bots b ON b.id = mp.bot_id
		JOIN users u ON u.id = b.owner_id
		JOIN bot_versions v ON v.id = mp.bot_version_id
		WHERE `+cond+` AND m.status = 'finished' AND `+notHidden("m.id", p.WithHidden)+`
		ORDER BY m.id, mp.seat`, arg)
	if err != nil {
		return fmt.Errorf("store: export matches of %s: %w", what, err)
	}
	defer rows.Close()
	var r ExportMatchSeat
	for rows.Next() {
		if err := rows.Scan(&r.MatchID, &r.Game, &r.Kind, &r.Ranked, &r.Seed, &r.MapSize, &r.Rounds, &r.CreatedAt, &r.FinishedAt,
			&r.Seat, &r.BotID, &r.BotName, &r.Owner, &r.VersionNumber, &r.Outcome, &r.Rank, &r.Points,
			&r.ShipsLeft, &r.ShotsFired, &r.ShotsLanded, &r.Fault); err != nil {
			return fmt.Errorf("store: export matches of %s: %w", what, err)
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: export matches of %s: %w", what, err)
	}
	return nil
}

// RatingEventsEach hands fn a ladder's rating events in the order they
// were applied, all of them or those from since (when not zero) until
// before (when not zero). Events of hidden battle games are left out
// unless withHidden.
func (s *Store) RatingEventsEach(ctx context.Context, ladder string, since, before time.Time, withHidden bool, fn func(*RatingEventRow) error) error {
	args := []any{ladder}
	q := ` WHERE e.ladder = $1`
	if !since.IsZero() {
		args = append(args, since)
		q += fmt.Sprintf(" AND e.created_at >= $%d", len(args))
	}
	if !before.IsZero() {
		args = append(args, before)
		q += fmt.Sprintf(" AND e.created_at < $%d", len(args))
	}
	q += " AND " + notHidden("e.match_id", withHidden) + " ORDER BY e.created_at, e.id"
	return s.eachRatingEvent(ctx, "ladder "+ladder, q, fn, args...)
}

// ExportLeaderboardEach hands fn a game's whole leaderboard in the order
// of the leaderboard page (see LeaderboardRows), with each row's rank.
func (s *Store) ExportLeaderboardEach(ctx context.Context, game string, fn func(*LeaderboardRow, float64) error) error {
	rows, err := s.db.Query(ctx, `
		SELECT b.id, b.name, u.username, b.language, b.house,
		       coalesce(r.rating, 1500), coalesce(r.deviation, 350), coalesce(r.volatility, 0.06),
		       coalesce(r.games, 0), coalesce(r.wins, 0), coalesce(r.losses, 0), coalesce(r.draws, 0), r.last_game_at
		FROM bots b JOIN users u ON u.id = b.owner_id
		LEFT JOIN ratings r ON r.bot_id = b.id AND r.ladder = $1
		WHERE b.game = $1 AND NOT b.disabled AND b.current_version_id IS NOT NULL
		ORDER BY r.bot_id IS NULL, r.rating - 2 * r.deviation DESC, b.id`, game)
	if err != nil {
		return fmt.Errorf("store: export leaderboard of %s: %w", game, err)
	}
	defer rows.Close()
	var l LeaderboardRow
	var volatility float64
	for rank := 1; rows.Next(); rank++ {
		l = LeaderboardRow{Rank: rank}
		if err := rows.Scan(&l.BotID, &l.BotName, &l.Owner, &l.Language, &l.House, &l.Rating.Rating, &l.Deviation, &volatility,
			&l.Games, &l.Wins, &l.Losses, &l.Draws, &l.LastGameAt); err != nil {
			return fmt.Errorf("store: export leaderboard of %s: %w", game, err)
		}
		if err := fn(&l, volatility); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: export leaderboard of %s: %w", game, err)
	}
	return nil
}

// ExportBattleEntry is one entry of a battle as its standings export
// writes it; the positions are nil until the battle sets them.
type ExportBattleEntry struct {
	FinalPosition *int
	SeedPosition  *int
	BotID         int64
	BotName       string
	Owner         string
	Language      string
	VersionNumber *int
}

// ExportBattleStandingsEach hands fn a battle's entries by final position,
// then seed, then entry time.
func (s *Store) ExportBattleStandingsEach(ctx context.Context, battleID int64, fn func(*ExportBattleEntry) error) error {
	rows, err := s.db.Query(ctx, `
		SELECT e.final_position, e.seed_position, e.bot_id, b.name, u.username, b.language, v.number
		FROM battle_entries e
		JOIN bots b ON b.id = e.bot_id
		JOIN users u ON u.id = e.user_id
		LEFT JOIN bot_versions v ON v.id = e.bot_version_id
		WHERE e.battle_id = $1
		ORDER BY e.final_position NULLS LAST, e.seed_position NULLS LAST, e.entered_at, e.bot_id`, battleID)
	if err != nil {
		return fmt.Errorf("store: export standings of battle %d: %w", battleID, err)
	}
	defer rows.Close()
	var e ExportBattleEntry
	for rows.Next() {
		if err := rows.Scan(&e.FinalPosition, &e.SeedPosition, &e.BotID, &e.BotName, &e.Owner, &e.Language, &e.VersionNumber); err != nil {
			return fmt.Errorf("store: export standings of battle %d: %w", battleID, err)
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: export standings of battle %d: %w", battleID, err)
	}
	return nil
}
