#!/usr/bin/env bash
# Public pages at a million matches: a fresh database with 10,000 bots and
# 1,000,000 matches (scripts/bench-seed.sql), the portal on loopback, and
# scripts/loadgen against every public page, one after the other, printed
# as one table. Needs a PostgreSQL server: BENCH_ADMIN_URL (default
# TEST_DATABASE_URL, else the local one).
# The seeded database is kept and reused by the next run: BENCH_DB names it
# (default broadside_bench; drop it to re-seed). BENCH_PORTAL runs an
# already-built portal binary instead of this checkout's, for paired
# before/after runs against the same data: it migrates the database to its
# own schema first (it cannot undo a newer checkout's migrations; roll those
# back by hand to measure an older one as it ran).
# Usage: scripts/bench-leaderboard.sh [loadgen flags, e.g. -c 16 -d 20s]
set -euo pipefail
cd "$(dirname "$0")/.."

admin=${BENCH_ADMIN_URL:-${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}}
db=${BENCH_DB:-broadside_bench}
url=${admin/\/postgres\?/\/$db?}
addr=${BENCH_ADDR:-127.0.0.1:18080}

mkdir -p bin data
go build -o bin/ ./cmd/portal
go build -o bin/loadgen ./scripts/loadgen
go build -o bin/pagecost ./scripts/pagecost

if [ "$(psql "$admin" -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]; then
  echo "bench: creating and seeding $db (about a minute)" >&2
  psql "$admin" -qc "CREATE DATABASE $db"
  DATABASE_URL=$url BLOB_URL=file://$PWD/data/bench-blobs bin/portal migrate
  psql "$url" -q -v ON_ERROR_STOP=1 -f scripts/bench-seed.sql
fi
# A database seeded by an older checkout gets the portal's migrations.
portal_bin=${BENCH_PORTAL:-bin/portal}
DATABASE_URL=$url BLOB_URL=file://$PWD/data/bench-blobs "$portal_bin" migrate
psql "$url" -tAc "SELECT 'bench: ' || (SELECT count(*) FROM bots) || ' bots, ' || (SELECT count(*) FROM matches) || ' matches'" >&2

DATABASE_URL=$url ADDR=$addr BLOB_URL=file://$PWD/data/bench-blobs LOG_LEVEL=warn "$portal_bin" &
portal=$!
trap 'kill -TERM $portal; wait $portal || true' EXIT
for _ in $(seq 50); do curl -fs "http://$addr/healthz" >/dev/null && break; sleep 0.2; done

# A finished match, a bot in the middle of the table and its most frequent
# opponent.
match=$(psql "$url" -tAc "SELECT max(id) FROM matches WHERE status = 'finished'")
bot=5000
rival=$(psql "$url" -tAc "SELECT o.bot_id FROM match_players p JOIN match_players o ON o.match_id = p.match_id AND o.bot_id <> p.bot_id
  WHERE p.bot_id = $bot GROUP BY o.bot_id ORDER BY count(*) DESC, o.bot_id LIMIT 1")
pages=(/leaderboard "/leaderboard?page=100" /api/leaderboard /matches "/matches/$match" "/bots/$bot" "/bots/$bot/history" "/bots/$bot/vs/$rival")
bin/loadgen "$@" "${pages[@]/#/http://$addr}"
if [ -z "${BENCH_PORTAL:-}" ]; then
  # The statements each page sends, its caches cold and warm.
  echo
  DATABASE_URL=$url bin/pagecost "${pages[@]}"
fi
