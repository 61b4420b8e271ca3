package store

import (
	"context"
	"fmt"
	"time"
)

// HistoryRow is one match from one bot's side: its result, its first
// opponent and what the match did to its rating.
type HistoryRow struct {
	MatchID    int64
	Kind       string
	Ranked     bool
	Status     string
	CreatedAt  time.Time
	FinishedAt *time.Time
	BotID      int64
	BotName    string
	BotOwner   string
	Outcome    string
	// Rank is the bot's placing (1 for the winner; 0 before the end).
	Rank   int
	Points int
	// Opponent is the first other seat; Others counts further seats (the
	// free-for-all games of Hit and Sunk).
	OpponentID     int64
	OpponentName   string
	OpponentOwner  string
	OpponentPoints int
	Others         int
	// RatingBefore and RatingAfter are set for ranked matches that were rated.
	RatingBefore *float64
	RatingAfter  *float64
}

// RatingChange is RatingAfter − RatingBefore, 0 for an unrated match.
func (r HistoryRow) RatingChange() float64 {
	if r.RatingBefore == nil || r.RatingAfter == nil {
		return 0
	}
	return *r.RatingAfter - *r.RatingBefore
}

// Rated reports whether the match changed the bot's rating.
func (r HistoryRow) Rated() bool { return r.RatingBefore != nil && r.RatingAfter != nil }

// historySelect reads HistoryRows for the seats of the CTE "seats"
// (match_id, bot_id, seat, outcome, rank, points: the covering seat index
// gives them all), newest match first. The other seats of each match are
// read once, for the first opponent and the count of the rest.
const historySelect = `
	SELECT m.id, m.kind, m.ranked, m.status, m.created_at, m.finished_at,
	       s.bot_id, b.name, bu.username, s.outcome, s.rank, s.points,
	       coalesce(o.bot_id, 0), coalesce(ob.name, ''), coalesce(ou.username, ''), coalesce(o.points, 0),
	       coalesce(o.others, 0) - 1,
	       re.rating_before, re.rating_after
	FROM seats s
	JOIN matches m ON m.id = s.match_id
	JOIN bots b ON b.id = s.bot_id
	JOIN users bu ON bu.id = b.owner_id
	LEFT JOIN LATERAL (
		SELECT x.bot_id, x.points, count(*) OVER () AS others FROM match_players x
		WHERE x.match_id = s.match_id AND x.bot_id <> s.bot_id ORDER BY x.seat LIMIT 1
	) o ON true
	LEFT JOIN bots ob ON ob.id = o.bot_id
	LEFT JOIN users ou ON ou.id = ob.owner_id
	LEFT JOIN rating_events re ON re.match_id = s.match_id AND re.bot_id = s.bot_id
	ORDER BY m.id DESC, s.seat`

func (s *Store) historyQuery(ctx context.Context, what, seats string, args ...any) ([]HistoryRow, error) {
	rows, err := s.db.Query(ctx, `WITH seats AS (`+seats+`)`+historySelect, args...)
	if err != nil {
		return nil, fmt.Errorf("store: history of %s: %w", what, err)
	}
	defer rows.Close()
	var out []HistoryRow
	for rows.Next() {
		var h HistoryRow
		if err := rows.Scan(&h.MatchID, &h.Kind, &h.Ranked, &h.Status, &h.CreatedAt, &h.FinishedAt,
			&h.BotID, &h.BotName, &h.BotOwner, &h.Outcome, &h.Rank, &h.Points,
			&h.OpponentID, &h.OpponentName, &h.OpponentOwner, &h.OpponentPoints, &h.Others,
			&h.RatingBefore, &h.RatingAfter); err != nil {
			return nil, fmt.Errorf("store: history of %s: %w", what, err)
		}
		h.Others = max(h.Others, 0)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: history of %s: %w", what, err)
	}
	return out, nil
}

// BotHistory pages through a bot's matches, newest first, read in the
// order of its seat index; the games of hidden battles only withHidden.
//
// The page's bounds are written into the statement rather than passed as
// parameters: planning for a LIMIT it cannot see, Postgres prices the
// generic plan for a tenth of the bot's seats and, for the bot page's 10,
// plans the nine-table query afresh at every execution (about 1 ms of its
// CPU each time). A statement per page size and offset stays prepared and
// plans once; the pages read are few.
func (s *Store) BotHistory(ctx context.Context, botID int64, limit, offset int, withHidden bool) ([]HistoryRow, error) {
	return s.historyQuery(ctx, fmt.Sprintf("bot %d", botID), `
		SELECT mp.match_id, mp.bot_id, mp.seat, mp.outcome, mp.rank, mp.points FROM match_players mp
		WHERE mp.bot_id = $1 AND `+notHidden("mp.match_id", withHidden)+`
		ORDER BY mp.match_id DESC `+fmt.Sprintf("LIMIT %d OFFSET %d", limit, offset), botID)
}

// ClanHistory pages through the matches of the bots of a clan's current
// members, newest first; a match between two of them gives a row for each.
// Each bot's newest seats come from its seat index, so a small clan's page
// never scans the whole match history. The games of hidden battles are
// listed only withHidden.
func (s *Store) ClanHistory(ctx context.Context, clanID int64, limit, offset int, withHidden bool) ([]HistoryRow, error) {
	return s.historyQuery(ctx, fmt.Sprintf("clan %d", clanID), `
		SELECT p.match_id, p.bot_id, p.seat, p.outcome, p.rank, p.points FROM clan_members c
		JOIN bots b ON b.owner_id = c.user_id
		CROSS JOIN LATERAL (
			SELECT x.match_id, x.bot_id, x.seat, x.outcome, x.rank, x.points FROM match_players x
			WHERE x.bot_id = b.id AND `+notHidden("x.match_id", withHidden)+`
			ORDER BY x.match_id DESC LIMIT $2::int + $3::int
		) p
		WHERE c.clan_id = $1
		ORDER BY p.match_id DESC, p.seat LIMIT $2 OFFSET $3`, clanID, limit, offset)
}

// RatingPoint is a bot's rating after one rated match.
type RatingPoint struct {
	MatchID   int64
	At        time.Time
	Rating    float64
	Deviation float64
	// Version is the number of the bot version that played the match
	// (for the starting point, the first match's).
	Version int
}

// RatingHistory returns a bot's rating on its game's ladder after each of
// its last limit rated matches, oldest first, preceded by the rating it
// had before the first of them (MatchID 0).
func (s *Store) RatingHistory(ctx context.Context, botID int64, limit int) ([]RatingPoint, error) {
	rows, err := s.db.Query(ctx, `
		SELECT match_id, at, rating_before, deviation_before, rating_after, deviation_after, version FROM (
			SELECT re.id, re.match_id, coalesce(m.finished_at, re.created_at) AS at,
			       re.rating_before, re.deviation_before, re.rating_after, re.deviation_after, v.number AS version
			FROM rating_events re
			JOIN bots b ON b.id = re.bot_id AND re.ladder = b.game
			JOIN matches m ON m.id = re.match_id
			JOIN match_players p ON p.match_id = re.match_id AND p.bot_id = re.bot_id
			JOIN bot_versions v ON v.id = p.bot_version_id
			WHERE re.bot_id = $1
			ORDER BY re.id DESC LIMIT $2
		) e ORDER BY id`, botID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: rating history of bot %d: %w", botID, err)
	}
	defer rows.Close()
	var out []RatingPoint
	for rows.Next() {
		var p RatingPoint
		var before, devBefore float64
		if err := rows.Scan(&p.MatchID, &p.At, &before, &devBefore, &p.Rating, &p.Deviation, &p.Version); err != nil {
			return nil, fmt.Errorf("store: rating history of bot %d: %w", botID, err)
		}
		if len(out) == 0 {
			out = append(out, RatingPoint{At: p.At, Rating: before, Deviation: devBefore, Version: p.Version})
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// HeadToHead sums up the finished matches two bots played against each other.
type HeadToHead struct {
	Games   int
	AWins   int
	BWins   int
	Draws   int
	APoints int
	BPoints int
}

// HeadToHeadGet counts the results of the finished matches between bots a
// and b, from a's side, and lists their most recent matches of any status.
// The games of hidden battles count once released, and are listed before
// only withHidden.
func (s *Store) HeadToHeadGet(ctx context.Context, a, b int64, limit int, withHidden bool) (*HeadToHead, []MatchRow, error) {
	var h HeadToHead
	err := s.db.QueryRow(ctx, `
		SELECT count(*),
		       count(*) FILTER (WHERE pa.outcome = 'win'),
		       count(*) FILTER (WHERE pb.outcome = 'win'),
		       count(*) FILTER (WHERE pa.outcome = 'draw'),
		       coalesce(sum(pa.points), 0), coalesce(sum(pb.points), 0)
		FROM match_players pa
		JOIN match_players pb ON pb.match_id = pa.match_id AND pb.bot_id = $2
		JOIN matches m ON m.id = pa.match_id
		WHERE pa.bot_id = $1 AND m.status = 'finished' AND NOT `+fmt.Sprintf(hiddenGame, "m.id"), a, b).
		Scan(&h.Games, &h.AWins, &h.BWins, &h.Draws, &h.APoints, &h.BPoints)
	if err != nil {
		return nil, nil, fmt.Errorf("store: head to head of bots %d and %d: %w", a, b, err)
	}
	rows, err := s.db.Query(ctx, `
		SELECT `+matchColumns+` FROM matches m WHERE m.id IN (
			SELECT pa.match_id FROM match_players pa
			JOIN match_players pb ON pb.match_id = pa.match_id AND pb.bot_id = $2
			WHERE pa.bot_id = $1 AND `+notHidden("pa.match_id", withHidden)+` ORDER BY pa.match_id DESC LIMIT $3)
		ORDER BY m.id DESC`, a, b, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("store: matches between bots %d and %d: %w", a, b, err)
	}
	var ms []*MatchRow
	for rows.Next() {
		m, err := scanMatch(rows)
		if err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("store: matches between bots %d and %d: %w", a, b, err)
		}
		ms = append(ms, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store: matches between bots %d and %d: %w", a, b, err)
	}
	if err := s.matchAttachPlayers(ctx, ms, false); err != nil {
		return nil, nil, err
	}
	out := make([]MatchRow, len(ms))
	for i, m := range ms {
		out[i] = *m
	}
	return &h, out, nil
}

// ClanBot is a bot of a clan member, as the clan page lists it.
type ClanBot struct {
	ID     int64
	Name   string
	Game   string
	Owner  string
	Ready  bool
	Rating *float64 // conservative rating; nil until rated
}

// ClanBots lists the bots of a clan's members, by owner then name.
func (s *Store) ClanBots(ctx context.Context, clanID int64) ([]ClanBot, error) {
	rows, err := s.db.Query(ctx, `
		SELECT b.id, b.name, b.game, u.username, b.current_version_id IS NOT NULL AND NOT b.disabled,
		       r.rating - 2 * r.deviation
		FROM clan_members c
		JOIN users u ON u.id = c.user_id
		JOIN bots b ON b.owner_id = c.user_id
		LEFT JOIN ratings r ON r.bot_id = b.id AND r.ladder = b.game
		WHERE c.clan_id = $1
		ORDER BY lower(u.username), lower(b.name), b.id`, clanID)
	if err != nil {
		return nil, fmt.Errorf("store: bots of clan %d: %w", clanID, err)
	}
	defer rows.Close()
	var out []ClanBot
	for rows.Next() {
		var b ClanBot
		if err := rows.Scan(&b.ID, &b.Name, &b.Game, &b.Owner, &b.Ready, &b.Rating); err != nil {
			return nil, fmt.Errorf("store: bots of clan %d: %w", clanID, err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// MatchPlayerRow is one seat of a match.
type MatchPlayerRow struct {
	Seat          int
	Key           string
	BotID         int64
	BotName       string
	OwnerID       int64
	Owner         string
	VersionID     int64
	VersionNumber int
	Points        int
	ShipsLeft     int
	ShotsFired    int
	ShotsLanded   int
	Killed        bool
	Outcome       string
	Rank          int
	Reason        string
	// Log is the bot's own log of the match: show it to its owner only.
	Log string
}

// matchAttachPlayers loads the players of ms in one query.
func (s *Store) matchAttachPlayers(ctx context.Context, ms []*MatchRow, withLog bool) error {
	if len(ms) == 0 {
		return nil
	}
	ids := make([]int64, len(ms))
	byID := make(map[int64]*MatchRow, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
		byID[m.ID] = m
	}
	// One match (its page) is asked for by id: for = ANY of an array it
	// cannot see, Postgres would plan the statement afresh at every
	// execution, as a list's does.
	var match any = ids
	cond := "p.match_id = ANY($1)"
	if len(ids) == 1 {
		match, cond = ids[0], "p.match_id = $1"
	}
	rows, err := s.db.Query(ctx, `
		SELECT p.match_id, p.seat, p.key, p.bot_id, b.name, b.owner_id, u.username, p.bot_version_id, v.number,
		       p.points, p.ships_left, p.shots_fired, p.shots_landed, p.killed, p.outcome, p.rank, p.reason,
		       CASE WHEN $2 THEN p.log ELSE '' END
		FROM match_players p
		JOIN bots b ON b.id = p.bot_id
		JOIN users u ON u.id = b.owner_id
		JOIN bot_versions v ON v.id = p.bot_version_id
		WHERE `+cond+` ORDER BY p.match_id, p.seat`, match, withLog)
	if err != nil {
		return fmt.Errorf("store: players of matches: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var matchID int64
		var p MatchPlayerRow
		if err := rows.Scan(&matchID, &p.Seat, &p.Key, &p.BotID, &p.BotName, &p.OwnerID, &p.Owner, &p.VersionID,
			&p.VersionNumber, &p.Points, &p.ShipsLeft, &p.ShotsFired, &p.ShotsLanded, &p.Killed, &p.Outcome,
			&p.Rank, &p.Reason, &p.Log); err != nil {
			return fmt.Errorf("store: players of matches: %w", err)
		}
		m := byID[matchID]
		m.Players = append(m.Players, p)
	}
	return rows.Err()
}
