package web_test

import (
	"context"
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

// BenchmarkLeaderboardPage renders the first leaderboard page of 10,000
// rated bots through the whole handler (session, cache, template). The
// load test with a million matches is scripts/bench-leaderboard.sh.
func BenchmarkLeaderboardPage(b *testing.B) {
	ctx := context.Background()
	pool := testdb.NewPool(b)
	_, err := pool.Exec(ctx, `
		INSERT INTO users (username, password_hash) SELECT 'bench' || i, '!' FROM generate_series(1, 1000) i;
		INSERT INTO bots (owner_id, name, game, language)
		SELECT u.id, 'bot-' || i, 'entelect', 'Python3' FROM generate_series(1, 10000) i
		JOIN users u ON u.username = 'bench' || (1 + i % 1000);
		INSERT INTO bot_versions (bot_id, number, manifest, bot_type, source_key, source_sha256, source_size, build_status)
		SELECT id, 1, '{}', 'Python3', 'k', '', 1, 'ok' FROM bots;
		UPDATE bots b SET current_version_id = v.id FROM bot_versions v WHERE v.bot_id = b.id;
		INSERT INTO ratings (bot_id, ladder, rating, deviation, volatility, games, wins, losses)
		SELECT id, 'entelect', 1000 + random() * 1000, 40 + random() * 100, 0.06, 200, 100, 100 FROM bots;
		ANALYZE`)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ttl  bool
		gzip bool
	}{{"cached", true, false}, {"cached-gzip", true, true}, {"uncached", false, false}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := web.DefaultConfig(rulesets.Registry())
			if !c.ttl {
				cfg.LeaderboardTTL = 0
			}
			h := web.New(store.New(pool), nil, nil, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), cfg).Routes()
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodGet, "/leaderboard", nil)
				if c.gzip {
					// As browsers and Go's client ask.
					req.Header.Set("Accept-Encoding", "gzip")
				}
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}
