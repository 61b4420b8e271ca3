package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// RatingState is a bot's full Glicko-2 state on one ladder.
type RatingState struct {
	BotID      int64
	Ladder     string
	Rating     float64
	Deviation  float64
	Volatility float64
	Games      int
	Wins       int
	Losses     int
	Draws      int
	LastGameAt *time.Time
}

// RatingsLock returns the ratings of bots on a ladder, locked until the
// transaction ends, creating missing ones with the given starting values.
// Rows are locked in bot order so concurrent finishing matches never
// deadlock; a match sharing a bot waits for the other to commit, which
// makes rating_events' id order the order ratings were applied in.
func (s *Store) RatingsLock(ctx context.Context, ladder string, botIDs []int64, start RatingState) (map[int64]RatingState, error) {
	ids := slices.Clone(botIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make(map[int64]RatingState, len(ids))
	err := s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		// One statement for every bot, inserting in bot order as the lock
		// below takes them.
		if _, err := st.db.Exec(ctx, `
			INSERT INTO ratings (bot_id, ladder, rating, deviation, volatility)
			SELECT id, $2, $3, $4, $5 FROM unnest($1::bigint[]) AS id ORDER BY id
			ON CONFLICT (bot_id, ladder) DO NOTHING`,
			ids, ladder, start.Rating, start.Deviation, start.Volatility); err != nil {
			return err
		}
		rows, err := st.db.Query(ctx, ratingSelect+`
			WHERE ladder = $1 AND bot_id = ANY($2) ORDER BY bot_id FOR UPDATE`, ladder, ids)
		if err != nil {
			return err
		}
		states, err := pgx.CollectRows(rows, pgx.RowToStructByPos[RatingState])
		if err != nil {
			return err
		}
		for _, r := range states {
			out[r.BotID] = r
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: lock ratings on %s: %w", ladder, err)
	}
	return out, nil
}

const ratingSelect = `
	SELECT bot_id, ladder, rating, deviation, volatility, games, wins, losses, draws, last_game_at
	FROM ratings`

// RatingChange is one bot's rating change from one rating period: a
// match, or the two halves of a pair.
type RatingChange struct {
	BotID int64
	// Before and After carry Rating, Deviation and Volatility.
	Before, After RatingState
	// Outcomes (win, loss or draw), one per game of the period, count the
	// games in the bot's record.
	Outcomes []string
}

// RatingApply records a rating period's changes: one rating event per bot,
// on matchID (the match that closed the period), computed by method, and
// the new current ratings. Call it after RatingsLock in the transaction
// that records the match; rating_events' (match, bot) uniqueness refuses a
// second application.
func (s *Store) RatingApply(ctx context.Context, matchID int64, ladder, method string, changes []RatingChange) error {
	sorted := slices.Clone(changes)
	slices.SortFunc(sorted, func(a, b RatingChange) int { return cmp.Compare(a.BotID, b.BotID) })
	// The changes as columns, one element a bot, for unnest.
	n := len(sorted)
	ids := make([]int64, n)
	ratingBefore, deviationBefore, volatilityBefore := make([]float64, n), make([]float64, n), make([]float64, n)
	ratingAfter, deviationAfter, volatilityAfter := make([]float64, n), make([]float64, n), make([]float64, n)
	games, wins, losses, draws := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	for i, c := range sorted {
		ids[i] = c.BotID
		ratingBefore[i], deviationBefore[i], volatilityBefore[i] = c.Before.Rating, c.Before.Deviation, c.Before.Volatility
		ratingAfter[i], deviationAfter[i], volatilityAfter[i] = c.After.Rating, c.After.Deviation, c.After.Volatility
		var rec RatingState
		rec.Count(c.Outcomes)
		games[i], wins[i], losses[i], draws[i] = rec.Games, rec.Wins, rec.Losses, rec.Draws
	}
	// Two statements for the whole period, whatever the number of bots: a
	// match's result is recorded with as few round trips as it can be.
	return s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		if _, err := st.db.Exec(ctx, `
			INSERT INTO rating_events (match_id, bot_id, ladder, method, rating_before, deviation_before, volatility_before,
			                           rating_after, deviation_after, volatility_after)
			SELECT $1, c.bot_id, $3, $4, c.rb, c.db, c.vb, c.ra, c.da, c.va
			FROM unnest($2::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::float8[])
			     AS c (bot_id, rb, db, vb, ra, da, va)
			ORDER BY c.bot_id`,
			matchID, ids, ladder, method, ratingBefore, deviationBefore, volatilityBefore,
			ratingAfter, deviationAfter, volatilityAfter); err != nil {
			return fmt.Errorf("store: rating events of match %d: %w", matchID, interpretError(err))
		}
		tag, err := st.db.Exec(ctx, `
			UPDATE ratings r SET rating = c.rating, deviation = c.deviation, volatility = c.volatility,
			       games = r.games + c.games, wins = r.wins + c.wins, losses = r.losses + c.losses,
			       draws = r.draws + c.draws, last_game_at = now()
			FROM unnest($2::bigint[], $3::float8[], $4::float8[], $5::float8[], $6::int[], $7::int[], $8::int[], $9::int[])
			     AS c (bot_id, rating, deviation, volatility, games, wins, losses, draws)
			WHERE r.bot_id = c.bot_id AND r.ladder = $1`,
			ladder, ids, ratingAfter, deviationAfter, volatilityAfter, games, wins, losses, draws)
		if err != nil {
			return fmt.Errorf("store: ratings of match %d: %w", matchID, err)
		}
		if rated := tag.RowsAffected(); rated != int64(n) {
			return fmt.Errorf("store: ratings of match %d on %s: %d of %d bots rated: %w (lock them first)",
				matchID, ladder, rated, n, ErrNotFound)
		}
		return nil
	})
}

// Count adds games with the given outcomes to the record.
func (r *RatingState) Count(outcomes []string) {
	for _, o := range outcomes {
		r.Games++
		switch o {
		case "win":
			r.Wins++
		case "loss":
			r.Losses++
		case "draw":
			r.Draws++
		}
	}
}

// RatingGet returns a bot's rating on a ladder.
func (s *Store) RatingGet(ctx context.Context, botID int64, ladder string) (*RatingState, error) {
	rows, err := s.db.Query(ctx, ratingSelect+` WHERE bot_id = $1 AND ladder = $2`, botID, ladder)
	if err != nil {
		return nil, fmt.Errorf("store: rating of bot %d: %w", botID, err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[RatingState])
	if err != nil {
		return nil, fmt.Errorf("store: rating of bot %d: %w", botID, interpretError(err))
	}
	return &r, nil
}

// RatingListAll returns every rating, by ladder and bot.
func (s *Store) RatingListAll(ctx context.Context) ([]RatingState, error) {
	rows, err := s.db.Query(ctx, ratingSelect+` ORDER BY ladder, bot_id`)
	if err != nil {
		return nil, fmt.Errorf("store: list ratings: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[RatingState])
	if err != nil {
		return nil, fmt.Errorf("store: list ratings: %w", err)
	}
	return out, nil
}

// RatedMatch is one rating period as history replays it: the match its
// rating events are recorded on, and the games rated together (that match
// alone, or both halves of its pair, in match order).
type RatedMatch struct {
	MatchID int64
	Ladder  string
	Method  string
	Games   []RatedGame
}

// RatedGame is one match of a rating period.
type RatedGame struct {
	MatchID int64
	Players []RatedPlayer
}

// RatedPlayer is one seat of a rated match.
type RatedPlayer struct {
	BotID   int64
	Rank    int
	Outcome string
}

// RatedMatchHistory calls fn for every rating period in the order its
// ratings were applied (the order of its first rating event), streaming so
// a million matches need no memory to speak of.
func (s *Store) RatedMatchHistory(ctx context.Context, fn func(RatedMatch) error) error {
	rows, err := s.db.Query(ctx, `
		WITH applied AS (
			SELECT match_id, min(ladder) AS ladder, min(method) AS method, min(id) AS first_event
			FROM rating_events GROUP BY match_id)
		SELECT a.match_id, a.ladder, a.method, h.id, p.bot_id, p.rank, p.outcome
		FROM applied a
		JOIN matches m ON m.id = a.match_id
		JOIN matches h ON h.id = a.match_id OR h.pair_id = m.pair_id
		JOIN match_players p ON p.match_id = h.id
		ORDER BY a.first_event, h.id, p.seat`)
	if err != nil {
		return fmt.Errorf("store: rated match history: %w", err)
	}
	defer rows.Close()
	var cur RatedMatch
	for rows.Next() {
		var id, half int64
		var ladder, method string
		var p RatedPlayer
		if err := rows.Scan(&id, &ladder, &method, &half, &p.BotID, &p.Rank, &p.Outcome); err != nil {
			return fmt.Errorf("store: rated match history: %w", err)
		}
		if id != cur.MatchID && cur.MatchID != 0 {
			if err := fn(cur); err != nil {
				return err
			}
			cur = RatedMatch{}
		}
		cur.MatchID, cur.Ladder, cur.Method = id, ladder, method
		if n := len(cur.Games); n == 0 || cur.Games[n-1].MatchID != half {
			cur.Games = append(cur.Games, RatedGame{MatchID: half})
		}
		g := &cur.Games[len(cur.Games)-1]
		g.Players = append(g.Players, p)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: rated match history: %w", err)
	}
	if cur.MatchID != 0 {
		return fn(cur)
	}
	return nil
}

// PairHalf is one half of a pair as the rating of the pair needs it.
type PairHalf struct {
	MatchID int64
	Status  string
	Players []RatedPlayer
}

// MatchPairLock locks both halves of the pair pairID, in id order, until
// the transaction ends, and returns them with their seats' results. The
// worker recording a half calls it before anything else, so the two halves
// finishing at once are recorded one after the other: the later one sees
// the earlier finished, and rates the pair.
func (s *Store) MatchPairLock(ctx context.Context, pairID int64) ([]PairHalf, error) {
	var out []PairHalf
	err := s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		rows, err := st.db.Query(ctx, `
			SELECT id, status FROM matches WHERE pair_id = $1 ORDER BY id FOR UPDATE`, pairID)
		if err != nil {
			return err
		}
		halves, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PairHalf, error) {
			var h PairHalf
			return h, r.Scan(&h.MatchID, &h.Status)
		})
		if err != nil {
			return err
		}
		for i := range halves {
			rows, err := st.db.Query(ctx, `
				SELECT bot_id, rank, outcome FROM match_players WHERE match_id = $1 ORDER BY seat`, halves[i].MatchID)
			if err != nil {
				return err
			}
			halves[i].Players, err = pgx.CollectRows(rows, pgx.RowToStructByPos[RatedPlayer])
			if err != nil {
				return err
			}
		}
		out = halves
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: lock pair %d: %w", pairID, err)
	}
	return out, nil
}

// RatingReplace overwrites a bot's current rating and record, for the
// recomputation from history.
func (s *Store) RatingReplace(ctx context.Context, r RatingState) error {
	_, err := s.db.Exec(ctx, `
		INSERT INTO ratings (bot_id, ladder, rating, deviation, volatility, games, wins, losses, draws, last_game_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (bot_id, ladder) DO UPDATE SET rating = $3, deviation = $4, volatility = $5, games = $6,
		       wins = $7, losses = $8, draws = $9, last_game_at = coalesce($10, ratings.last_game_at)`,
		r.BotID, r.Ladder, r.Rating, r.Deviation, r.Volatility, r.Games, r.Wins, r.Losses, r.Draws, r.LastGameAt)
	if err != nil {
		return fmt.Errorf("store: replace rating of bot %d: %w", r.BotID, err)
	}
	return nil
}

// LeaderboardRow is one line of a game's leaderboard.
type LeaderboardRow struct {
	Rank     int
	BotID    int64
	BotName  string
	Owner    string
	Language string
	House    bool
	Rating
}

// LeaderboardRows returns one page of a game's leaderboard: every enabled
// bot with a built version, rated bots by conservative rating then id (read
// in index order), then bots without a rated match yet, by id, showing the
// Glicko-2 start (1500 ± 350). It also returns how many bots are listed.
func (s *Store) LeaderboardRows(ctx context.Context, game string, limit, offset int) ([]LeaderboardRow, int, error) {
	var total int
	err := s.db.QueryRow(ctx, `SELECT count(*) FROM bots WHERE game = $1 AND NOT disabled AND current_version_id IS NOT NULL`,
		game).Scan(&total)
	if err != nil {
		return nil, 0, fmt.Errorf("store: count leaderboard of %s: %w", game, err)
	}
	rows, err := s.db.Query(ctx, `
		SELECT id, name, owner, language, house, rating, deviation, games, wins, losses, draws, last_game_at
		FROM (
			(SELECT 0 AS part, b.id, b.name, u.username AS owner, b.language, b.house, r.rating, r.deviation,
			        r.rating - 2 * r.deviation AS conservative,
			        r.games, r.wins, r.losses, r.draws, r.last_game_at
			 FROM ratings r JOIN bots b ON b.id = r.bot_id JOIN users u ON u.id = b.owner_id
			 WHERE r.ladder = $1 AND b.game = $1 AND NOT b.disabled AND b.current_version_id IS NOT NULL
			 ORDER BY r.rating - 2 * r.deviation DESC, r.bot_id
			 LIMIT $2::int + $3::int)
			UNION ALL
			(SELECT 1, b.id, b.name, u.username, b.language, b.house, 1500, 350, 800, 0, 0, 0, 0, NULL
			 FROM bots b JOIN users u ON u.id = b.owner_id
			 WHERE b.game = $1 AND NOT b.disabled AND b.current_version_id IS NOT NULL
			   AND NOT EXISTS (SELECT 1 FROM ratings r WHERE r.bot_id = b.id AND r.ladder = $1)
			 ORDER BY b.id
			 LIMIT $2::int + $3::int)
		) l
		ORDER BY part, conservative DESC, id
		LIMIT $2 OFFSET $3`, game, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("store: leaderboard of %s: %w", game, err)
	}
	defer rows.Close()
	var out []LeaderboardRow
	for rows.Next() {
		l := LeaderboardRow{Rank: offset + len(out) + 1}
		if err := rows.Scan(&l.BotID, &l.BotName, &l.Owner, &l.Language, &l.House, &l.Rating.Rating, &l.Deviation,
			&l.Games, &l.Wins, &l.Losses, &l.Draws, &l.LastGameAt); err != nil {
			return nil, 0, fmt.Errorf("store: leaderboard of %s: %w", game, err)
		}
		out = append(out, l)
	}
	return out, total, rows.Err()
}

// Rating is a bot's current standing on its game's ladder.
type Rating struct {
	Rating     float64
	Deviation  float64
	Games      int
	Wins       int
	Losses     int
	Draws      int
	LastGameAt *time.Time
}

// Conservative is the rating the leaderboard sorts by: rating − 2 × deviation.
func (r Rating) Conservative() float64 { return r.Rating - 2*r.Deviation }
