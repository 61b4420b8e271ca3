package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// MatchRow is a match with its players, as match lists show it.
type MatchRow struct {
	ID         int64
	Game       string
	Kind       string
	Ranked     bool
	Status     string
	Rounds     int
	MapSize    int
	Seed       int64
	ReplayKey  string
	Error      string
	Summary    json.RawMessage
	CreatedAt  time.Time
	FinishedAt *time.Time
	// PairID is the id of the first half of the pair the match is a half
	// of; nil for a match that stands alone.
	PairID *int64
	// Fault is FaultPlatform for a match the platform failed.
	Fault string
	// DuelID is the duel the match is game DuelGame (from 0) of; nil for
	// a match of no duel.
	DuelID   *int64
	DuelGame int
	Players  []MatchPlayerRow
}

const matchColumns = `m.id, m.game, m.kind, m.ranked, m.status, m.rounds, m.map_size, m.seed, m.replay_key,
	m.error, m.summary, m.created_at, m.finished_at, m.pair_id, m.fault, m.duel_id, coalesce(m.duel_game, 0)`

func scanMatch(row interface{ Scan(...any) error }) (*MatchRow, error) {
	var m MatchRow
	err := row.Scan(&m.ID, &m.Game, &m.Kind, &m.Ranked, &m.Status, &m.Rounds, &m.MapSize, &m.Seed, &m.ReplayKey,
		&m.Error, &m.Summary, &m.CreatedAt, &m.FinishedAt, &m.PairID, &m.Fault, &m.DuelID, &m.DuelGame)
	if err != nil {
		return nil, interpretError(err)
	}
	return &m, nil
}

// MatchDetailGet returns a match with its players in seat order.
func (s *Store) MatchDetailGet(ctx context.Context, id int64) (*MatchRow, error) {
	m, err := scanMatch(s.db.QueryRow(ctx, `SELECT `+matchColumns+` FROM matches m WHERE m.id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("store: get match %d: %w", id, err)
	}
	ms := []*MatchRow{m}
	if err := s.matchAttachPlayers(ctx, ms, true); err != nil {
		return nil, err
	}
	return m, nil
}

// MatchListParams filter and page a match list, newest first.
type MatchListParams struct {
	// BotID, when set, keeps the matches that bot played.
	BotID int64
	// Game, when set, keeps the matches of that game.
	Game string
	// OwnerID, when set, keeps the matches a bot of that user played.
	OwnerID int64
	// Outcome, when set with BotID or OwnerID, keeps the matches where
	// that bot (or one of that user's bots) had this outcome: "win",
	// "loss" or "draw".
	Outcome string
	// Kind, when set, keeps the matches of that kind ("ladder",
	// "placement", "challenge", "battle").
	Kind string
	// Ranked, when set, keeps the ranked matches (true) or the others.
	Ranked *bool
	// Since, when set, keeps the matches created at or after it.
	Since time.Time
	// WithHidden keeps the games of battles whose results are hidden and
	// not yet released; only organisers may see them (see hiddenGame).
	WithHidden bool
	Limit      int
	Offset     int
	// Before, when set, keeps the matches older than the one of this id:
	// the page after a page that ended with it. Paging by the last id
	// seen reads a page from the index however deep it is, where Offset
	// reads and skips every match before it.
	Before int64
	// After, when set, keeps the Limit matches nearest to and newer than
	// the one of this id (still listed newest first): the page before a
	// page that started with it.
	After int64
}

// hiddenGame is true for a match that is a game of a battle whose results
// are hidden and not yet released, with %s the match id's column. While
// hidden, who played which game is itself the result (the games' players
// give the bracket away), so public lists leave such games out entirely.
const hiddenGame = `EXISTS (SELECT 1 FROM battle_games hg JOIN battles hb ON hb.id = hg.battle_id
	WHERE hg.match_id = %s AND hb.results_hidden AND NOT hb.released)`

// notHidden is a condition that keeps the rows of column's match unless
// it is a hidden battle game, or keeps them all withHidden. It is left
// out of the query rather than made a parameter, so the planner can use
// it (an anti-join on battle_games' match index).
func notHidden(column string, withHidden bool) string {
	if withHidden {
		return "true"
	}
	return "NOT " + fmt.Sprintf(hiddenGame, column)
}

// MatchRows lists matches, newest first, with their players (without logs).
func (s *Store) MatchRows(ctx context.Context, p MatchListParams) ([]MatchRow, error) {
	args := []any{p.Limit, p.Offset}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	bySeat := p.BotID != 0 || p.OwnerID != 0
	// m is the match in the query of matches, g in the query of seats.
	g := "m"
	if bySeat {
		g = "g"
	}
	// Only the filters given become conditions, so that each query keeps
	// a plan that uses its indexes.
	var conds []string
	if p.Game != "" {
		conds = append(conds, g+".game = "+arg(p.Game))
	}
	if p.Kind != "" {
		conds = append(conds, g+".kind = "+arg(p.Kind))
	}
	if p.Ranked != nil {
		conds = append(conds, g+".ranked = "+arg(*p.Ranked))
	}
	if !p.Since.IsZero() {
		conds = append(conds, g+".created_at >= "+arg(p.Since))
	}
	// id is the column the list is ordered and paged by; order is the
	// order it is read in: from After up, the nearest first.
	id, order := "m.id", "DESC"
	if bySeat {
		id = "mp.match_id"
	}
	if p.Before != 0 {
		conds = append(conds, id+" < "+arg(p.Before))
	}
	if p.After != 0 {
		conds = append(conds, id+" > "+arg(p.After))
		order = "ASC"
	}
	if !bySeat {
		conds = append(conds, notHidden("m.id", p.WithHidden))
		q := `SELECT ` + matchColumns + ` FROM matches m WHERE ` + strings.Join(conds, " AND ") + `
			ORDER BY m.id ` + order + ` LIMIT $1 OFFSET $2`
		if p.After != 0 {
			q = `SELECT * FROM (` + q + `) m ORDER BY m.id DESC`
		}
		return s.matchRowsQuery(ctx, q, args...)
	}
	join := ""
	if p.BotID != 0 {
		conds = append(conds, "mp.bot_id = "+arg(p.BotID))
	}
	if p.OwnerID != 0 {
		join = " JOIN bots b ON b.id = mp.bot_id"
		conds = append(conds, "b.owner_id = "+arg(p.OwnerID))
	}
	if p.Outcome != "" {
		conds = append(conds, "mp.outcome = "+arg(p.Outcome))
	}
	conds = append(conds, notHidden("mp.match_id", p.WithHidden))
	// Page through the bot's seats in index order, then fetch those
	// matches: scanning matches newest first would read thousands of
	// rows for a bot with few recent games.
	q := `SELECT ` + matchColumns + ` FROM (
			SELECT DISTINCT mp.match_id FROM match_players mp JOIN matches g ON g.id = mp.match_id` + join + `
			WHERE ` + strings.Join(conds, " AND ") + `
			ORDER BY mp.match_id ` + order + ` LIMIT $1 OFFSET $2
		) p JOIN matches m ON m.id = p.match_id
		ORDER BY m.id DESC`
	return s.matchRowsQuery(ctx, q, args...)
}

// matchRowsQuery runs a query of matchColumns and attaches the players.
func (s *Store) matchRowsQuery(ctx context.Context, q string, args ...any) ([]MatchRow, error) {
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list matches: %w", err)
	}
	var ms []*MatchRow
	for rows.Next() {
		m, err := scanMatch(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: list matches: %w", err)
		}
		ms = append(ms, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list matches: %w", err)
	}
	if err := s.matchAttachPlayers(ctx, ms, false); err != nil {
		return nil, err
	}
	out := make([]MatchRow, len(ms))
	for i, m := range ms {
		out[i] = *m
	}
	return out, nil
}
