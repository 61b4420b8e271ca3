package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// BenchmarkScale measures the read paths the portal and the ladder hit on
// every page view at the scale the platform is built for: 10,000 bots and
// 1,000,000 finished matches (seeding takes about a minute).
func BenchmarkScale(b *testing.B) {
	ctx := context.Background()
	pool := testdb.NewPool(b)
	start := time.Now()
	seed := []string{
		// Seeding skips foreign-key triggers: the rows are consistent by
		// construction and the checks would triple the time.
		`SET session_replication_role = replica`,
		`INSERT INTO users (username, password_hash) SELECT 'u' || i, 'x' FROM generate_series(1, 2000) i`,
		`INSERT INTO bots (owner_id, name, game, language) SELECT 1 + (i % 2000), 'bot' || i, 'entelect', 'Python3'
		 FROM generate_series(1, 10000) i`,
		`INSERT INTO bot_versions (bot_id, number, manifest, bot_type, source_key, source_sha256, source_size, build_status, artifact_key)
		 SELECT id, 1, '{}', 'Python3', 'k', 's', 1, 'ok', 'a' FROM bots`,
		`UPDATE bots SET current_version_id = v.id FROM bot_versions v WHERE v.bot_id = bots.id`,
		`INSERT INTO matches (seed, kind, ranked, status, rounds, created_at, finished_at)
		 SELECT i, 'ladder', true, 'finished', 40, now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval
		 FROM generate_series(1, 1000000) i`,
		`INSERT INTO match_players (match_id, seat, bot_id, bot_version_id, outcome, rank)
		 SELECT m.id, s.seat, b, b, CASE WHEN s.seat = 0 THEN 'win' ELSE 'loss' END, s.seat + 1
		 FROM matches m, LATERAL (VALUES (0, 1 + (m.id * 7919) % 10000), (1, 1 + (m.id * 104729 + 1) % 10000)) AS s(seat, b)`,
		`INSERT INTO ratings (bot_id, ladder, rating, deviation, volatility, games, wins, losses, last_game_at)
		 SELECT id, 'entelect', 1200 + (id * 37) % 600, 50 + (id * 13) % 300, 0.06, 200, 100, 100, now() FROM bots`,
		// The ladder's counters, which the triggers skipped.
		`SELECT ladder_counts_rebuild()`,
		`ANALYZE`,
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range seed {
		if _, err := conn.Exec(ctx, q); err != nil {
			b.Fatalf("seed: %v\n%s", err, q)
		}
	}
	conn.Release()
	b.Logf("seeded 10,000 bots and 1,000,000 matches in %s", time.Since(start).Round(time.Second))
	st := store.New(pool)
	b.ResetTimer()
	b.Run("leaderboard first page", func(b *testing.B) {
		for b.Loop() {
			if rows, _, err := st.LeaderboardRows(ctx, "entelect", 50, 0); err != nil || len(rows) != 50 {
				b.Fatal(err)
			}
		}
	})
	b.Run("leaderboard last page", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := st.LeaderboardRows(ctx, "entelect", 50, 9950); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("matches of a bot", func(b *testing.B) {
		for b.Loop() {
			if rows, err := st.MatchRows(ctx, store.MatchListParams{BotID: 4242, Limit: 50}); err != nil || len(rows) == 0 {
				b.Fatal(err)
			}
		}
	})
	b.Run("recent matches", func(b *testing.B) {
		for b.Loop() {
			if rows, err := st.MatchRows(ctx, store.MatchListParams{Limit: 50}); err != nil || len(rows) != 50 {
				b.Fatal(err)
			}
		}
	})
	b.Run("match detail", func(b *testing.B) {
		for b.Loop() {
			if _, err := st.MatchDetailGet(ctx, 777777); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ladder candidates", func(b *testing.B) {
		for b.Loop() {
			if c, err := st.LadderCandidates(ctx, "entelect"); err != nil || len(c) != 10000 {
				b.Fatal(err)
			}
		}
	})
}
