package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
	"github.com/broadside/broadside/internal/web"
)

// download fetches an export with an optional bearer token and returns
// its status, content type and body.
func (b *testBundle) download(t *testing.T, path, token string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), string(body)
}

// csvTable parses a CSV export into its header and rows.
func csvTable(t *testing.T, body string) ([]string, [][]string) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("not CSV with a header (%v):\n%s", err, body)
	}
	return recs[0], recs[1:]
}

// jsonLines parses a JSON lines export, keeping each line's key order.
func jsonLines(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSuffix(body, "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// TestExportMatches: a game's match export has one row per player with
// the versions, results, scores and seed, the same in CSV and JSON lines,
// through the site and the API; names that need quoting come back whole.
func TestExportMatches(t *testing.T) {
	b := setup(t, nil)
	alice := b.browser(t)
	alice.register("alice")
	b.browser(t).register("bob")
	tricky := "Ahab, \"the\" captain\nof =SUM(A1)"
	aBot, aVer := b.builtBot(t, b.userID(t, "alice"), tricky)
	bBot, bVer := b.builtBot(t, b.userID(t, "bob"), "Nemo")
	match := b.playedMatch(t, [2][2]int64{{aBot, aVer}, {bBot, bVer}})
	// A second version of Nemo plays a second match.
	_, bVer2 := b.builtBot(t, b.userID(t, "bob"), "Nemo")
	second := b.playedMatch(t, [2][2]int64{{bBot, bVer2}, {aBot, aVer}})
	// A queued match has no result yet and is left out.
	if _, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: 9, Kind: "challenge",
		Players: []store.MatchPlayerParams{{BotID: aBot, BotVersionID: aVer}, {BotID: bBot, BotVersionID: bVer}}}); err != nil {
		t.Fatal(err)
	}
	tok := alice.apiToken("laptop")

	want := [][]string{
		{fmt.Sprint(match), "entelect", "challenge", "false", "7", "1", "1", "0", fmt.Sprint(aBot), tricky, "alice", "1", "win", "1", "120", "0", "0", "0", ""},
		{fmt.Sprint(match), "entelect", "challenge", "false", "7", "1", "1", "1", fmt.Sprint(bBot), "Nemo", "bob", "1", "loss", "2", "40", "0", "0", "0", ""},
		{fmt.Sprint(second), "entelect", "challenge", "false", "7", "1", "1", "0", fmt.Sprint(bBot), "Nemo", "bob", "2", "win", "1", "120", "0", "0", "0", ""},
		{fmt.Sprint(second), "entelect", "challenge", "false", "7", "1", "1", "1", fmt.Sprint(aBot), tricky, "alice", "1", "loss", "2", "40", "0", "0", "0", ""},
	}
	cols := []string{"match_id", "game", "kind", "ranked", "seed", "map_size", "rounds", "created_at", "finished_at",
		"seat", "bot_id", "bot", "owner", "version", "outcome", "rank", "points", "ships_left", "shots_fired", "shots_landed", "fault"}
	// drop leaves out the times, which the test does not know.
	drop := func(row []string) []string { return slices.Concat(row[:7], row[9:]) }

	for _, path := range []string{"/exports/matches?game=entelect", "/api/exports/matches?format=csv"} {
		status, ctype, body := b.download(t, path, "")
		if status != http.StatusOK || ctype != "text/csv; charset=utf-8" {
			t.Fatalf("GET %s: status %d, %s:\n%s", path, status, ctype, body)
		}
		if !strings.Contains(body, `"Ahab, ""the"" captain`+"\nof =SUM(A1)\"") {
			t.Errorf("GET %s: the bot name is not quoted as CSV:\n%s", path, body)
		}
		head, rows := csvTable(t, body)
		if !slices.Equal(head, cols) {
			t.Fatalf("GET %s: columns %v, want %v", path, head, cols)
		}
		if len(rows) != len(want) {
			t.Fatalf("GET %s: %d rows, want %d:\n%s", path, len(rows), len(want), body)
		}
		for i, row := range rows {
			if got := drop(row); !slices.Equal(got, want[i]) {
				t.Errorf("GET %s: row %d is\n%q, want\n%q", path, i, got, want[i])
			}
			if row[7] == "" || row[8] == "" {
				t.Errorf("GET %s: row %d has no times: %q", path, i, row)
			}
		}
	}

	// JSON lines: the same rows, keyed by the same names, typed.
	status, ctype, body := b.download(t, "/api/exports/matches?format=jsonl", tok)
	if status != http.StatusOK || ctype != "application/x-ndjson" {
		t.Fatalf("jsonl: status %d, %s", status, ctype)
	}
	lines := jsonLines(t, body)
	if len(lines) != len(want) {
		t.Fatalf("jsonl: %d lines, want %d:\n%s", len(lines), len(want), body)
	}
	first := strings.SplitN(body, "\n", 2)[0]
	var keys []string
	dec := json.NewDecoder(strings.NewReader(first))
	_, _ = dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip any
		_ = dec.Decode(&skip)
	}
	if !slices.Equal(keys, cols) {
		t.Errorf("jsonl keys %v, want the CSV columns %v", keys, cols)
	}
	l := lines[2]
	if l["match_id"] != float64(second) || l["bot"] != "Nemo" || l["version"] != 2.0 || l["seed"] != 7.0 ||
		l["ranked"] != false || l["outcome"] != "win" || l["points"] != 120.0 || l["fault"] != nil {
		t.Errorf("jsonl line %v", l)
	}
	if lines[0]["bot"] != tricky {
		t.Errorf("jsonl bot name %q, want %q", lines[0]["bot"], tricky)
	}

	// The pages link the exports, in both formats, for their game.
	for page, links := range map[string][]string{
		"/leaderboard": {"/exports/leaderboard?game=entelect&amp;format=csv", "/exports/rating-events?game=entelect&amp;format=jsonl",
			"/exports/matches?game=entelect&amp;format=csv", "/exports/matches?game=entelect&amp;format=jsonl"},
		"/matches":               {"/exports/matches?game=entelect&amp;format=csv", "/exports/matches?game=entelect&amp;format=jsonl"},
		"/matches?game=entelect": {"/exports/matches?game=entelect&amp;format=csv"},
	} {
		res := alice.get(page)
		for _, l := range links {
			if !strings.Contains(res.body, `href="`+l+`"`) {
				t.Errorf("%s does not link %s", page, l)
			}
		}
	}

	// Refusals: an unknown game or format, an unknown token.
	for _, c := range []struct {
		path, token string
		status      int
	}{
		{"/api/exports/matches?game=chess", "", http.StatusNotFound},
		{"/api/exports/matches?format=xml", "", http.StatusBadRequest},
		{"/api/exports/matches", "bs_nope", http.StatusUnauthorized},
		{"/exports/matches?format=xml", "", http.StatusBadRequest},
	} {
		if status, _, body := b.download(t, c.path, c.token); status != c.status {
			t.Errorf("GET %s: status %d, want %d:\n%s", c.path, status, c.status, body)
		}
	}
}

// TestExportRatingEventsAndLeaderboard: the rating events export has the
// before and after of each change, in the columns of the day's CSV, and
// the leaderboard export lists every bot in the leaderboard's order.
func TestExportRatingEventsAndLeaderboard(t *testing.T) {
	b := setup(t, nil)
	b.browser(t).register("alice")
	b.browser(t).register("bob")
	aBot, aVer := b.builtBot(t, b.userID(t, "alice"), "Ahab")
	bBot, bVer := b.builtBot(t, b.userID(t, "bob"), "Nemo")
	cBot, _ := b.builtBot(t, b.userID(t, "bob"), "Unrated")
	first := b.playedMatch(t, [2][2]int64{{aBot, aVer}, {bBot, bVer}})
	rate(t, b, first, map[int64][2]float64{aBot: {1500, 1560.25}, bBot: {1500, 1439.75}}, map[int64]string{aBot: "win", bBot: "loss"})
	second := b.playedMatch(t, [2][2]int64{{aBot, aVer}, {bBot, bVer}})
	rate(t, b, second, map[int64][2]float64{aBot: {1560.25, 1590}, bBot: {1439.75, 1410}}, map[int64]string{aBot: "win", bBot: "loss"})

	status, _, body := b.download(t, "/api/exports/rating-events", "")
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	head, rows := csvTable(t, body)
	_, _, day := b.download(t, "/ratings/events.csv", "")
	dayHead, dayRows := csvTable(t, day)
	if !slices.Equal(head, dayHead) || len(dayRows) != 4 {
		t.Errorf("the day's CSV has columns %v and %d rows; the export %v", dayHead, len(dayRows), head)
	}
	if len(rows) != 4 {
		t.Fatalf("%d events, want 4:\n%s", len(rows), body)
	}
	col := func(row []string, name string) string { return row[slices.Index(head, name)] }
	wantEvents := [][4]string{
		{fmt.Sprint(first), fmt.Sprint(aBot), "1500", "1560.25"},
		{fmt.Sprint(first), fmt.Sprint(bBot), "1500", "1439.75"},
		{fmt.Sprint(second), fmt.Sprint(aBot), "1560.25", "1590"},
		{fmt.Sprint(second), fmt.Sprint(bBot), "1439.75", "1410"},
	}
	for i, row := range rows {
		got := [4]string{col(row, "match_id"), col(row, "bot_id"), col(row, "rating_before"), col(row, "rating_after")}
		if got != wantEvents[i] || col(row, "deviation_before") != "300" || col(row, "conservative_after") == "" {
			t.Errorf("event %d: %q, want %q", i, row, wantEvents[i])
		}
	}

	status, _, body = b.download(t, "/api/exports/leaderboard?format=jsonl", "")
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	lines := jsonLines(t, body)
	var got []string
	for _, l := range lines {
		got = append(got, fmt.Sprintf("%v %v %v %v", l["rank"], l["bot"], l["rating"], l["games"]))
	}
	want := []string{"1 Ahab 1590 2", "2 Nemo 1410 2", "3 Unrated 1500 0"}
	if !slices.Equal(got, want) {
		t.Errorf("leaderboard export %q, want %q", got, want)
	}
	if lines[2]["bot_id"] != float64(cBot) || lines[2]["last_game_at"] != nil || lines[0]["last_game_at"] == nil {
		t.Errorf("leaderboard lines %v", lines)
	}
	// The page's first rows agree with the export's.
	if res := b.browser(t).get("/leaderboard"); strings.Index(res.body, "Ahab") > strings.Index(res.body, "Nemo") {
		t.Error("the leaderboard page's order differs from the export's")
	}
}

// TestExportHiddenBattle: while a battle's results are hidden, its games
// are in no export but an organiser's, and its own export is refused to
// everyone else; after the release everyone gets them.
func TestExportHiddenBattle(t *testing.T) {
	b := setup(t, nil)
	org, ann, battle, annBot, olgaBot := b.hiddenBattle(t)
	annTok, orgTok := ann.apiToken("laptop"), org.apiToken("desk")
	for _, res := range []response{battleAct(ann, battle, "enter", annBot), battleAct(org, battle, "enter", olgaBot), battleAct(org, battle, "start", 0)} {
		if res.status != http.StatusSeeOther {
			t.Fatalf("enter or start: status %d", res.status)
		}
	}
	game := b.queue.matchIDs()[0]
	b.finishDuel(t, game, annBot)
	svc := competition.New(b.st, b.queue, slog.New(slog.NewTextHandler(io.Discard, nil)), rulesets.Registry())
	if err := svc.AdvanceBattle(b.ctx, battle); err != nil {
		t.Fatal(err)
	}
	battlePath := fmt.Sprintf("/battles/%d/exports/matches", battle)
	standingsPath := fmt.Sprintf("/battles/%d/exports/standings", battle)
	// standings lists "position bot" of each entry of the standings export.
	standings := func(t *testing.T, token string) []string {
		t.Helper()
		status, _, body := b.download(t, "/api"+standingsPath+"?format=jsonl", token)
		if status != http.StatusOK {
			t.Fatalf("standings: status %d: %s", status, body)
		}
		var out []string
		for _, l := range jsonLines(t, body) {
			out = append(out, fmt.Sprintf("%v %v v%v", l["final_position"], l["bot"], l["version"]))
		}
		return out
	}
	wantStandings := []string{"1 Pyro v1", "2 Orca v1"}
	// matchIDs lists the match ids of an export's rows.
	matchIDs := func(t *testing.T, path, token string, br *browser) []string {
		t.Helper()
		var status int
		var body string
		if br != nil {
			res := br.get(path)
			status, body = res.status, res.body
		} else {
			status, _, body = b.download(t, path, token)
		}
		if status != http.StatusOK {
			t.Fatalf("GET %s: status %d", path, status)
		}
		_, rows := csvTable(t, body)
		var ids []string
		for _, r := range rows {
			ids = append(ids, r[0])
		}
		return ids
	}
	hiddenGame := []string{fmt.Sprint(game), fmt.Sprint(game)}

	t.Run("hidden", func(t *testing.T) {
		for _, tok := range []string{"", annTok} {
			if ids := matchIDs(t, "/api/exports/matches", tok, nil); len(ids) != 0 {
				t.Errorf("token %q: the game export has the hidden game: %v", tok, ids)
			}
			for _, path := range []string{battlePath, standingsPath} {
				status, _, body := b.download(t, "/api"+path, tok)
				if status != http.StatusForbidden || strings.Contains(body, "Pyro") {
					t.Errorf("token %q: %s answers %d:\n%s", tok, path, status, body)
				}
			}
		}
		if ids := matchIDs(t, "/exports/matches", "", ann); len(ids) != 0 {
			t.Errorf("a contestant's game export on the site has the hidden game: %v", ids)
		}
		for _, path := range []string{battlePath, standingsPath} {
			if res := ann.get(path); res.status != http.StatusForbidden {
				t.Errorf("a contestant's %s on the site answers %d", path, res.status)
			}
		}
		if res := ann.get(fmt.Sprintf("/battles/%d", battle)); strings.Contains(res.body, battlePath) {
			t.Error("the battle page links an export the contestant may not have")
		}
	})
	t.Run("organiser", func(t *testing.T) {
		if ids := matchIDs(t, "/api/exports/matches", orgTok, nil); !slices.Equal(ids, hiddenGame) {
			t.Errorf("organiser's game export: %v, want %v", ids, hiddenGame)
		}
		if ids := matchIDs(t, "/api"+battlePath, orgTok, nil); !slices.Equal(ids, hiddenGame) {
			t.Errorf("organiser's battle export: %v, want %v", ids, hiddenGame)
		}
		if ids := matchIDs(t, battlePath, "", org); !slices.Equal(ids, hiddenGame) {
			t.Errorf("organiser's battle export on the site: %v", ids)
		}
		if got := standings(t, orgTok); !slices.Equal(got, wantStandings) {
			t.Errorf("organiser's standings %q, want %q", got, wantStandings)
		}
		if res := org.get(fmt.Sprintf("/battles/%d", battle)); !strings.Contains(res.body, battlePath) {
			t.Error("the battle page does not link its export for the organiser")
		}
	})

	path := fmt.Sprintf("/battles/%d", battle)
	if res := org.post(path+"/release", url.Values{"csrf_token": {org.token(path)}}); res.status != http.StatusSeeOther {
		t.Fatalf("release: status %d", res.status)
	}
	t.Run("released", func(t *testing.T) {
		for _, tok := range []string{"", annTok} {
			if ids := matchIDs(t, "/api/exports/matches", tok, nil); !slices.Equal(ids, hiddenGame) {
				t.Errorf("token %q: game export after release %v", tok, ids)
			}
			if ids := matchIDs(t, "/api"+battlePath, tok, nil); !slices.Equal(ids, hiddenGame) {
				t.Errorf("token %q: battle export after release %v", tok, ids)
			}
			if got := standings(t, tok); !slices.Equal(got, wantStandings) {
				t.Errorf("token %q: standings after release %q", tok, got)
			}
		}
	})
}

// seedMatches fills a fresh database with two bots and n finished
// matches between them, two seats each, in one statement. They are
// challenges: a ladder match's seat updates its bots' ladder counters, and
// a million updates of the same two counter rows in one transaction would
// take most of the time.
func seedMatches(tb testing.TB, pool *pgxpool.Pool, n int) {
	tb.Helper()
	_, err := pool.Exec(context.Background(), `
		INSERT INTO users (username, password_hash) VALUES ('seed', '!');
		INSERT INTO bots (owner_id, name, game, language) SELECT u.id, 'bot-' || i, 'entelect', 'Python3'
		FROM users u, generate_series(0, 1) i;
		INSERT INTO bot_versions (bot_id, number, manifest, bot_type, source_key, source_sha256, source_size, build_status)
		SELECT id, 1, '{}', 'Python3', 'k', '', 1, 'ok' FROM bots;
		UPDATE bots b SET current_version_id = v.id FROM bot_versions v WHERE v.bot_id = b.id;
		INSERT INTO matches (game, seed, kind, ranked, status, rounds, created_at, finished_at)
		SELECT 'entelect', i, 'challenge', false, 'finished', 50, now(), now() FROM generate_series(1, `+fmt.Sprint(n)+`) i;
		INSERT INTO match_players (match_id, seat, bot_id, bot_version_id, points, outcome, rank)
		SELECT m.id, s.seat, b.id, b.current_version_id, 100 + s.seat, CASE WHEN s.seat = 0 THEN 'win' ELSE 'loss' END, s.seat + 1
		FROM matches m CROSS JOIN (VALUES (0), (1)) s (seat) JOIN bots b ON b.name = 'bot-' || s.seat;
		ANALYZE`)
	if err != nil {
		tb.Fatal(err)
	}
}

// flushRecorder is a ResponseWriter that notes how much of the body had
// been written at each flush, and the heap in use then.
// A benchmark's recorder (discard) keeps none of the body, so the heap it
// samples is the handler's own.
type flushRecorder struct {
	header    http.Header
	code      int
	body      bytes.Buffer
	written   int
	flushedAt []int
	heap      uint64
	discard   bool
}

func (f *flushRecorder) Header() http.Header  { return f.header }
func (f *flushRecorder) WriteHeader(code int) { f.code = code }
func (f *flushRecorder) Write(p []byte) (int, error) {
	f.written += len(p)
	if f.discard {
		return len(p), nil
	}
	return f.body.Write(p)
}

func (f *flushRecorder) Flush() {
	f.flushedAt = append(f.flushedAt, f.written)
	if f.discard && len(f.flushedAt)%64 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		f.heap = max(f.heap, ms.HeapInuse)
	}
}

// TestExportStreams: an export reaches the client in pieces as the rows
// are read, rather than once at the end: of 3,000 matches (6,000 rows),
// the first flush carries a small part of the body, and flushes follow
// all the way through.
func TestExportStreams(t *testing.T) {
	t.Parallel()
	pool := testdb.NewPool(t)
	seedMatches(t, pool, 3000)
	h := web.New(store.New(pool), nil, nil, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), web.DefaultConfig(rulesets.Registry())).Routes()
	for _, format := range []string{"csv", "jsonl"} {
		rec := &flushRecorder{header: http.Header{}}
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/exports/matches?format="+format, nil))
		total := rec.body.Len()
		lines := strings.Count(rec.body.String(), "\n")
		if rec.code != http.StatusOK || lines < 6000 {
			t.Fatalf("%s: status %d, %d lines", format, rec.code, lines)
		}
		if len(rec.flushedAt) < 10 || rec.flushedAt[0] == 0 || rec.flushedAt[0] > total/10 {
			t.Errorf("%s: %d flushes, the first after %d of %d bytes: the export is not streamed", format, len(rec.flushedAt), rec.flushedAt, total)
		}
		// The last line is whole: every row ends where the next begins.
		sc := bufio.NewScanner(bytes.NewReader(rec.body.Bytes()))
		n := 0
		for sc.Scan() {
			n++
		}
		if n != lines {
			t.Errorf("%s: %d lines scanned, %d newlines", format, n, lines)
		}
	}
}

// TestExportFailsBeforeSending: an export whose query fails before any
// row was sent is answered as an error, not as an empty download.
func TestExportFailsBeforeSending(t *testing.T) {
	t.Parallel()
	pool := testdb.NewPool(t)
	h := web.New(store.New(pool), nil, nil, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), web.DefaultConfig(rulesets.Registry())).Routes()
	pool.Close()
	for _, path := range []string{"/api/exports/matches?format=csv", "/api/exports/leaderboard?format=jsonl"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code < 500 || rec.Header().Get("Content-Disposition") != "" || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") ||
			!strings.Contains(rec.Body.String(), `"error"`) {
			t.Errorf("%s with the database gone: status %d, %q, %q: %s", path, rec.Code,
				rec.Header().Get("Content-Type"), rec.Header().Get("Content-Disposition"), rec.Body.String())
		}
	}
}

// BenchmarkExportMatches streams a game's match export of BENCH_MATCHES
// matches (100,000 by default) and reports the bytes written and the
// largest heap in use while it ran.
func BenchmarkExportMatches(b *testing.B) {
	n := 100000
	if v, err := strconv.Atoi(os.Getenv("BENCH_MATCHES")); err == nil && v > 0 {
		n = v
	}
	pool := testdb.NewPool(b)
	seedMatches(b, pool, n)
	h := web.New(store.New(pool), nil, nil, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), web.DefaultConfig(rulesets.Registry())).Routes()
	for b.Loop() {
		rec := &flushRecorder{header: http.Header{}, discard: true}
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/exports/matches", nil))
		if rec.code != http.StatusOK {
			b.Fatalf("status %d", rec.code)
		}
		b.ReportMetric(float64(rec.written), "bytes/export")
		b.ReportMetric(float64(rec.heap)/(1<<20), "MiB-heap-in-use")
	}
}
