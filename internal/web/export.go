package web

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// exportFlushRows is how many rows an export writes between flushes: the
// client sees the download grow while the database is still being read.
const exportFlushRows = 256

// exportStall is how long a flush may wait on the client. A million
// matches outlast the server's write timeout on a slow link, so each flush
// moves the deadline on instead; a client that stops reading still lets go
// of the database connection the export holds.
const exportStall = time.Minute

// table writes an export's rows as they are read, as CSV (a header line,
// then one line a row) or as JSON lines (one object a row, keyed by the
// same column names), so both formats of an export say the same thing.
type table struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	cols    []string
	jsonl   bool
	csv     *csv.Writer
	buf     *bufio.Writer
	pending int
	rec     []string
	line    []byte
	// sent is set once the first bytes went to the client: from then on
	// the status is given and a failure can only cut the download short.
	sent bool
}

// sentWriter writes to the response, noting that the table was sent.
type sentWriter struct{ t *table }

func (s sentWriter) Write(p []byte) (int, error) {
	s.t.sent = true
	return s.t.w.Write(p)
}

// exportFormat reads ?format=: csv (the default) or jsonl.
func exportFormat(r *http.Request) (jsonl bool, err error) {
	switch r.URL.Query().Get("format") {
	case "", "csv":
		return false, nil
	case "jsonl", "ndjson":
		return true, nil
	}
	return false, refuse(http.StatusBadRequest, "The format is csv or jsonl.")
}

// startTable sets the headers of an export named name (the file name
// without its extension) and writes the CSV header line; both go out with
// the first rows.
func startTable(w http.ResponseWriter, jsonl bool, name string, cols []string) (*table, error) {
	t := &table{w: w, rc: http.NewResponseController(w), cols: cols, jsonl: jsonl}
	t.buf = bufio.NewWriterSize(sentWriter{t}, 32<<10)
	_ = t.rc.SetWriteDeadline(time.Now().Add(exportStall))
	// Proxies that buffer responses (nginx) pass this one on as it comes.
	w.Header().Set("X-Accel-Buffering", "no")
	ext := "csv"
	if jsonl {
		ext = "jsonl"
		w.Header().Set("Content-Type", "application/x-ndjson")
	} else {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s.%s"`, name, ext))
	if !jsonl {
		t.csv = csv.NewWriter(t.buf)
		if err := t.csv.Write(cols); err != nil {
			return nil, fmt.Errorf("export %s: %w", name, err)
		}
	}
	return t, nil
}

// row writes one row, its values in the order of the columns: strings,
// integers, floats, booleans, times or nil (an empty CSV field, a JSON
// null).
func (t *table) row(vals ...any) error {
	if len(vals) != len(t.cols) {
		return fmt.Errorf("export: %d values for %d columns", len(vals), len(t.cols))
	}
	if t.jsonl {
		t.line = append(t.line[:0], '{')
		for i, v := range vals {
			if i > 0 {
				t.line = append(t.line, ',')
			}
			t.line = strconv.AppendQuote(t.line, t.cols[i])
			t.line = append(t.line, ':')
			b, err := json.Marshal(jsonValue(v))
			if err != nil {
				return fmt.Errorf("export: column %s: %w", t.cols[i], err)
			}
			t.line = append(t.line, b...)
		}
		t.line = append(t.line, '}', '\n')
		if _, err := t.buf.Write(t.line); err != nil {
			return err
		}
	} else {
		t.rec = t.rec[:0]
		for _, v := range vals {
			t.rec = append(t.rec, csvField(v))
		}
		if err := t.csv.Write(t.rec); err != nil {
			return err
		}
	}
	if t.pending++; t.pending >= exportFlushRows {
		return t.flush()
	}
	return nil
}

// flush sends what is written so far to the client.
func (t *table) flush() error {
	t.pending = 0
	if t.csv != nil {
		t.csv.Flush()
		if err := t.csv.Error(); err != nil {
			return err
		}
	}
	if err := t.buf.Flush(); err != nil {
		return err
	}
	if err := t.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	_ = t.rc.SetWriteDeadline(time.Now().Add(exportStall))
	return nil
}

func csvField(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case *time.Time:
		if v == nil {
			return ""
		}
		return v.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

func jsonValue(v any) any {
	switch v := v.(type) {
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case *time.Time:
		if v == nil {
			return nil
		}
		return v.UTC().Format(time.RFC3339Nano)
	}
	return v
}

// export runs one export: each hands write every row; a failure before
// the first byte is answered as the request's error, and one after it
// cuts the download short, so a client never takes a partial file for a
// whole one.
func (h *Handler) export(w http.ResponseWriter, r *http.Request, fail func(http.ResponseWriter, *http.Request, error),
	name string, cols []string, each func(write func(vals ...any) error) error) {
	jsonl, err := exportFormat(r)
	if err != nil {
		fail(w, r, err)
		return
	}
	t, err := startTable(w, jsonl, name, cols)
	if err == nil {
		err = each(t.row)
	}
	if err == nil {
		err = t.flush()
	}
	if err == nil {
		return
	}
	if t == nil || !t.sent {
		w.Header().Del("X-Accel-Buffering")
		w.Header().Del("Content-Disposition")
		w.Header().Del("Content-Type")
		fail(w, r, err)
		return
	}
	h.logger.WarnContext(r.Context(), "export cut short", "export", name, "err", err)
	panic(http.ErrAbortHandler)
}

// The columns of each export; docs/api.md lists them, and they keep their
// names and order (new columns go at the end).
var (
	matchExportColumns = []string{"match_id", "game", "kind", "ranked", "seed", "map_size", "rounds", "created_at", "finished_at",
		"seat", "bot_id", "bot", "owner", "version", "outcome", "rank", "points", "ships_left", "shots_fired", "shots_landed", "fault"}
	ratingEventColumns = []string{"event_id", "applied_at", "ladder", "method", "match_id", "bot_id", "bot",
		"rating_before", "deviation_before", "volatility_before", "rating_after", "deviation_after", "volatility_after",
		"conservative_before", "conservative_after"}
	battleStandingsColumns   = []string{"final_position", "seed_position", "bot_id", "bot", "owner", "language", "version"}
	leaderboardExportColumns = []string{"rank", "bot_id", "bot", "owner", "language", "house", "rating", "deviation", "volatility",
		"conservative", "games", "wins", "losses", "draws", "last_game_at"}
)

func matchExportRow(write func(vals ...any) error) func(*store.ExportMatchSeat) error {
	return func(s *store.ExportMatchSeat) error {
		var fault any
		if s.Fault != "" {
			fault = s.Fault
		}
		return write(s.MatchID, s.Game, s.Kind, s.Ranked, s.Seed, s.MapSize, s.Rounds, s.CreatedAt, s.FinishedAt,
			s.Seat, s.BotID, s.BotName, s.Owner, s.VersionNumber, s.Outcome, s.Rank, s.Points, s.ShipsLeft, s.ShotsFired, s.ShotsLanded, fault)
	}
}

func ratingEventRow(write func(vals ...any) error) func(*store.RatingEventRow) error {
	return func(e *store.RatingEventRow) error {
		return write(e.ID, e.CreatedAt, e.Ladder, e.Method, e.MatchID, e.BotID, e.BotName,
			e.Before.Rating, e.Before.Deviation, e.VolBefore, e.After.Rating, e.After.Deviation, e.VolAfter,
			e.Before.Conservative(), e.After.Conservative())
	}
}

// exportFailer answers an export's refusal as a page, or as JSON on /api.
func (h *Handler) exportFailer(r *http.Request) func(http.ResponseWriter, *http.Request, error) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		return h.apiFail
	}
	return h.fail
}

// exportMatches is a game's finished matches, one row a player; the games
// of hidden battles are left out but for organisers.
func (h *Handler) exportMatches(w http.ResponseWriter, r *http.Request) {
	fail := h.exportFailer(r)
	game, err := h.leaderboardGame(r)
	if err != nil {
		fail(w, r, err)
		return
	}
	p := store.ExportMatchParams{Game: game, WithHidden: seesHidden(r)}
	h.export(w, r, fail, "broadside-"+game+"-matches", matchExportColumns, func(write func(...any) error) error {
		return h.store.ExportMatchesEach(r.Context(), p, matchExportRow(write))
	})
}

// exportBattle reads the battle of an export's path; while its results
// are hidden, only organisers get its exports.
func (h *Handler) exportBattle(r *http.Request) (int64, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return 0, err
	}
	b, err := h.store.BattleGetByID(r.Context(), id)
	if err != nil {
		return 0, err
	}
	if !b.ResultsVisible() && !seesHidden(r) {
		return 0, refuse(http.StatusForbidden, "This battle's results are hidden until the organiser releases them.")
	}
	return id, nil
}

// exportBattleMatches is a battle's finished games.
func (h *Handler) exportBattleMatches(w http.ResponseWriter, r *http.Request) {
	fail := h.exportFailer(r)
	id, err := h.exportBattle(r)
	if err != nil {
		fail(w, r, err)
		return
	}
	p := store.ExportMatchParams{BattleID: id, WithHidden: seesHidden(r)}
	h.export(w, r, fail, fmt.Sprintf("broadside-battle-%d-matches", id), matchExportColumns, func(write func(...any) error) error {
		return h.store.ExportMatchesEach(r.Context(), p, matchExportRow(write))
	})
}

// exportRatingEvents is every rating event of a game's ladder, in the
// order applied, at full precision, so anyone can replay the ratings.
func (h *Handler) exportRatingEvents(w http.ResponseWriter, r *http.Request) {
	fail := h.exportFailer(r)
	game, err := h.leaderboardGame(r)
	if err != nil {
		fail(w, r, err)
		return
	}
	h.export(w, r, fail, "broadside-"+game+"-rating-events", ratingEventColumns, func(write func(...any) error) error {
		return h.store.RatingEventsEach(r.Context(), game, time.Time{}, time.Time{}, seesHidden(r), ratingEventRow(write))
	})
}

// exportLeaderboard is a game's whole leaderboard as it stands.
func (h *Handler) exportLeaderboard(w http.ResponseWriter, r *http.Request) {
	fail := h.exportFailer(r)
	game, err := h.leaderboardGame(r)
	if err != nil {
		fail(w, r, err)
		return
	}
	h.export(w, r, fail, "broadside-"+game+"-leaderboard", leaderboardExportColumns, func(write func(...any) error) error {
		return h.store.ExportLeaderboardEach(r.Context(), game, func(l *store.LeaderboardRow, volatility float64) error {
			return write(l.Rank, l.BotID, l.BotName, l.Owner, l.Language, l.House, l.Rating.Rating, l.Deviation, volatility,
				l.Conservative(), l.Games, l.Wins, l.Losses, l.Draws, l.LastGameAt)
		})
	})
}

// exportBattleStandings is a battle's entries with their seeds and, once
// it is over, their final positions.
func (h *Handler) exportBattleStandings(w http.ResponseWriter, r *http.Request) {
	fail := h.exportFailer(r)
	id, err := h.exportBattle(r)
	if err != nil {
		fail(w, r, err)
		return
	}
	h.export(w, r, fail, fmt.Sprintf("broadside-battle-%d-standings", id), battleStandingsColumns, func(write func(...any) error) error {
		return h.store.ExportBattleStandingsEach(r.Context(), id, func(e *store.ExportBattleEntry) error {
			return write(intOrNil(e.FinalPosition), intOrNil(e.SeedPosition), e.BotID, e.BotName, e.Owner, e.Language, intOrNil(e.VersionNumber))
		})
	})
}

// intOrNil is an optional number as a table value: nil when absent.
func intOrNil(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
