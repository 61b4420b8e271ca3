package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
	"github.com/broadside/broadside/internal/web"
)

// BenchmarkHistoryPages renders the pages this change reads history for,
// through the whole handler, on 1,000 bots with 200,000 rated matches (400
// per bot, every seat with its rating event) and a clan of 100 members.
func BenchmarkHistoryPages(b *testing.B) {
	ctx := context.Background()
	pool := testdb.NewPool(b)
	_, err := pool.Exec(ctx, `
		INSERT INTO users (username, password_hash) SELECT 'bench' || i, '!' FROM generate_series(1, 500) i;
		INSERT INTO bots (owner_id, name, game, language)
		SELECT u.id, 'bot-' || i, 'entelect', 'Python3' FROM generate_series(1, 1000) i
		JOIN users u ON u.username = 'bench' || (1 + i % 500);
		INSERT INTO bot_versions (bot_id, number, manifest, bot_type, source_key, source_sha256, source_size, build_status)
		SELECT id, 1, '{}', 'Python3', 'k', '', 1, 'ok' FROM bots;
		UPDATE bots b SET current_version_id = v.id FROM bot_versions v WHERE v.bot_id = b.id;
		INSERT INTO ratings (bot_id, ladder, rating, deviation, volatility, games, wins, losses)
		SELECT id, 'entelect', 1000 + random() * 1000, 40 + random() * 100, 0.06, 400, 200, 200 FROM bots;
		INSERT INTO matches (game, seed, kind, ranked, status, rounds, created_at, finished_at)
		SELECT 'entelect', i, 'ladder', true, 'finished', 50, now() - (200000 - i) * interval '1 second',
		       now() - (200000 - i) * interval '1 second'
		FROM generate_series(1, 200000) i;
		INSERT INTO match_players (match_id, seat, bot_id, bot_version_id, points, outcome, rank)
		SELECT m.id, s.seat, b.id, b.current_version_id, 100 + (m.id * 7 + s.seat) % 200,
		       CASE WHEN s.seat = 0 THEN 'win' ELSE 'loss' END, s.seat + 1
		FROM matches m CROSS JOIN (VALUES (0), (1)) s (seat)
		JOIN bots b ON b.id = (SELECT min(id) FROM bots) + ((m.id * 7919 + s.seat * 499) % 1000);
		INSERT INTO rating_events (match_id, bot_id, ladder, rating_before, deviation_before, volatility_before,
		                           rating_after, deviation_after, volatility_after)
		SELECT match_id, bot_id, 'entelect', 1500, 100, 0.06, 1500 + CASE WHEN seat = 0 THEN 8 ELSE -8 END, 99, 0.06
		FROM match_players;
		INSERT INTO clans (name, join_key) VALUES ('Bench', 'k');
		INSERT INTO clan_members (clan_id, user_id, role)
		SELECT c.id, u.id, 'member' FROM clans c, users u WHERE u.id % 5 = 0;
		ANALYZE`)
	if err != nil {
		b.Fatal(err)
	}
	var bot, other, clan int64
	if err := pool.QueryRow(ctx, `SELECT min(bot_id) FROM match_players`).Scan(&bot); err != nil {
		b.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT bot_id FROM match_players WHERE match_id = (SELECT max(match_id) FROM match_players WHERE bot_id = $1) AND bot_id <> $1`, bot).Scan(&other); err != nil {
		b.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT id FROM clans`).Scan(&clan); err != nil {
		b.Fatal(err)
	}
	h := web.New(store.New(pool), nil, nil, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), web.DefaultConfig(rulesets.Registry())).Routes()
	for _, path := range []string{
		fmt.Sprintf("/bots/%d", bot),
		fmt.Sprintf("/bots/%d/history", bot),
		fmt.Sprintf("/bots/%d/history?page=5", bot),
		fmt.Sprintf("/bots/%d/vs/%d", bot, other),
		fmt.Sprintf("/clans/%d", clan),
	} {
		b.Run(path, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}
