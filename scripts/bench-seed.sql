-- Fills a Broadside database with a season's worth of data for the
-- leaderboard benchmark: 1,000 users, 10,000 entelect bots with a built
-- version and a rating, and 1,000,000 finished ranked matches (2,000,000
-- seats). Run on an empty, migrated database:
--   psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f scripts/bench-seed.sql
BEGIN;
-- Bulk rows skip the triggers (foreign keys and the ladder's counters):
-- they are consistent by construction, and the counters are rebuilt once
-- at the end.
SET LOCAL session_replication_role = replica;

INSERT INTO users (username, password_hash)
SELECT 'bench' || i, '!' FROM generate_series(1, 1000) i;

INSERT INTO bots (owner_id, name, game, language)
SELECT u.id, 'bot-' || i, 'entelect', (ARRAY['Python3', 'Golang', 'Java', 'JavaScript', 'CPlusPlus'])[1 + i % 5]
FROM generate_series(1, 10000) i
JOIN users u ON u.username = 'bench' || (1 + i % 1000);

INSERT INTO bot_versions (bot_id, number, manifest, bot_type, source_key, source_sha256, source_size, build_status, built_at)
SELECT id, 1, '{}'::jsonb, language, 'bench/' || id || '.zip', '', 1000, 'ok', now() FROM bots;

UPDATE bots b SET current_version_id = v.id FROM bot_versions v WHERE v.bot_id = b.id;

INSERT INTO ratings (bot_id, ladder, rating, deviation, volatility, games, wins, losses, last_game_at)
SELECT id, 'entelect', 1000 + random() * 1000, 40 + random() * 100, 0.06, 200, 100, 100, now() - random() * interval '7 days'
FROM bots;

INSERT INTO matches (game, seed, kind, ranked, status, rounds, created_at, finished_at)
SELECT 'entelect', i, 'ladder', true, 'finished', 40 + i % 60,
       now() - (1000000 - i) * interval '1 second', now() - (1000000 - i) * interval '1 second'
FROM generate_series(1, 1000000) i;

-- Two seats per match: bot ids drawn from the match id, never the same bot twice.
INSERT INTO match_players (match_id, seat, bot_id, bot_version_id, points, outcome, rank)
SELECT m.id, s.seat, b.id, b.current_version_id, 100 + (m.id * 7 + s.seat) % 200,
       CASE WHEN s.seat = 0 THEN 'win' ELSE 'loss' END, s.seat + 1
FROM matches m
CROSS JOIN (VALUES (0), (1)) s (seat)
JOIN bots b ON b.id = (SELECT min(id) FROM bots) + ((m.id * 7919 + s.seat * 4999) % 10000);

SELECT ladder_counts_rebuild();

COMMIT;
-- VACUUM as well: the seed updated every bot once, and a page read through
-- dead row versions measures the seed, not the portal.
VACUUM ANALYZE;
