package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// LiveRound is one round of a running match: its public text files by
// name.
type LiveRound struct {
	Seq   int
	Name  string
	Files map[string]string
}

// MatchEvent is a notification on the match_events channel: rounds
// played (Round set: the last of them, First the first) or a status
// change (Status set). The worker announces its rounds in batches, a few
// a second, so one event may stand for several rounds; a reader reads
// every round it has not read yet.
type MatchEvent struct {
	Match  int64  `json:"match"`
	Round  *int   `json:"round,omitempty"`
	First  *int   `json:"first,omitempty"`
	Status string `json:"status,omitempty"`
}

// matchEventsChannel is the channel the match_events_notify trigger and
// MatchLiveRoundsAdd announce on.
const matchEventsChannel = "match_events"

// MatchLiveRoundAdd records one round of a running match and announces
// it.
func (s *Store) MatchLiveRoundAdd(ctx context.Context, matchID int64, r LiveRound) error {
	return s.MatchLiveRoundsAdd(ctx, matchID, []LiveRound{r})
}

// MatchLiveRoundsAdd records rounds of a running match and announces them
// with one notification, in one statement: the worker publishes a few
// times a second whatever the pace of the rounds. A round written again
// (a retried publish) replaces the first; of one seq given twice, the
// last counts. Nothing is written or announced once the match is no
// longer running.
func (s *Store) MatchLiveRoundsAdd(ctx context.Context, matchID int64, rounds []LiveRound) error {
	if len(rounds) == 0 {
		return nil
	}
	at := map[int]int{} // seq → index in the arrays
	var seqs []int32
	var names, files []string
	for _, r := range rounds {
		data, err := json.Marshal(r.Files)
		if err != nil {
			return fmt.Errorf("store: encode live round: %w", err)
		}
		if i, ok := at[r.Seq]; ok {
			names[i], files[i] = r.Name, string(data)
			continue
		}
		at[r.Seq] = len(seqs)
		seqs, names, files = append(seqs, int32(r.Seq)), append(names, r.Name), append(files, string(data))
	}
	_, err := s.db.Exec(ctx, `
		WITH up AS (
			INSERT INTO match_live_rounds (match_id, seq, name, files)
			SELECT $1, r.seq, r.name, r.files::jsonb
			FROM matches m, unnest($2::int[], $3::text[], $4::text[]) AS r (seq, name, files)
			WHERE m.id = $1 AND m.status = 'running'
			ON CONFLICT (match_id, seq) DO UPDATE SET name = EXCLUDED.name, files = EXCLUDED.files
			RETURNING seq)
		SELECT pg_notify($5, json_build_object('match', $1::bigint, 'round', max(seq), 'first', min(seq))::text)
		FROM up HAVING count(*) > 0`,
		matchID, seqs, names, files, matchEventsChannel)
	if err != nil {
		return fmt.Errorf("store: add live rounds %d to %d of match %d: %w", rounds[0].Seq, rounds[len(rounds)-1].Seq, matchID, err)
	}
	return nil
}

// MatchLiveRounds returns the rounds of a running match from seq on, in
// order.
func (s *Store) MatchLiveRounds(ctx context.Context, matchID int64, from int) ([]LiveRound, error) {
	rows, err := s.db.Query(ctx, `
		SELECT seq, name, files FROM match_live_rounds
		WHERE match_id = $1 AND seq >= $2 ORDER BY seq`, matchID, from)
	if err != nil {
		return nil, fmt.Errorf("store: live rounds of match %d: %w", matchID, err)
	}
	defer rows.Close()
	var out []LiveRound
	for rows.Next() {
		var r LiveRound
		var files []byte
		if err := rows.Scan(&r.Seq, &r.Name, &files); err != nil {
			return nil, fmt.Errorf("store: live rounds of match %d: %w", matchID, err)
		}
		if err := json.Unmarshal(files, &r.Files); err != nil {
			return nil, fmt.Errorf("store: live round %d of match %d: %w", r.Seq, matchID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// MatchEventsListen holds one connection listening on match_events and
// calls fn for every event until ctx ends or the connection fails, and
// ready (when not nil) once it listens: what was committed before is not
// announced. Each portal process needs only one, however many pages
// follow matches.
func (s *Store) MatchEventsListen(ctx context.Context, ready func(), fn func(MatchEvent)) error {
	return s.listenReady(ctx, matchEventsChannel, ready, func(payload []byte) {
		var ev MatchEvent
		if json.Unmarshal(payload, &ev) == nil && ev.Match > 0 {
			fn(ev)
		}
	})
}

// KeepListening runs listen (a call of one of the Store's Listen methods)
// until ctx ends, and again after pause each time its connection fails,
// telling failed of each failure; what it missed meanwhile is the caller's
// to find.
func KeepListening(ctx context.Context, pause time.Duration, listen func(context.Context) error, failed func(error)) {
	for {
		err := listen(ctx)
		if ctx.Err() != nil {
			return
		}
		failed(err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
	}
}

// listen holds one connection listening on channel and calls fn with
// every notification's payload until ctx ends or the connection fails.
func (s *Store) listen(ctx context.Context, channel string, fn func(payload []byte)) error {
	return s.listenReady(ctx, channel, nil, fn)
}

// listenReady is listen, calling ready (when not nil) once the connection
// listens: what is committed from then on is announced.
func (s *Store) listenReady(ctx context.Context, channel string, ready func(), fn func(payload []byte)) error {
	conn, err := s.ownSession(ctx)
	if err != nil {
		return fmt.Errorf("store: listen on %s: %w", channel, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return fmt.Errorf("store: listen on %s: %w", channel, err)
	}
	if ready != nil {
		ready()
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("store: wait on %s: %w", channel, err)
		}
		fn([]byte(n.Payload))
	}
}

// matchWatchChannel is the channel on which portals say which running
// matches someone follows live: workers publish a match's rounds only
// once somebody does.
const matchWatchChannel = "match_watch"

// MatchWatchAnnounce tells every worker that the matches ids are followed
// live now, one notification each.
func (s *Store) MatchWatchAnnounce(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := s.db.Exec(ctx, `SELECT pg_notify($1, id::text) FROM unnest($2::bigint[]) AS id`,
		matchWatchChannel, ids); err != nil {
		return fmt.Errorf("store: announce watched matches: %w", err)
	}
	return nil
}

// MatchWatchListen holds one connection listening on match_watch and
// calls fn with each match announced until ctx ends or the connection
// fails.
func (s *Store) MatchWatchListen(ctx context.Context, fn func(matchID int64)) error {
	return s.listen(ctx, matchWatchChannel, func(payload []byte) {
		if id, err := strconv.ParseInt(string(payload), 10, 64); err == nil && id > 0 {
			fn(id)
		}
	})
}

// MatchRowsPlaying lists the matches being played now, of game when set,
// oldest start first; the games of hidden battles only withHidden.
func (s *Store) MatchRowsPlaying(ctx context.Context, game string, limit int, withHidden bool) ([]MatchRow, error) {
	return s.matchRowsQuery(ctx, `SELECT `+matchColumns+` FROM matches m
		WHERE m.status = 'running' AND ($2 = '' OR m.game = $2) AND `+notHidden("m.id", withHidden)+`
		ORDER BY m.started_at, m.id LIMIT $1`, limit, game)
}
