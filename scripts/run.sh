#!/usr/bin/env bash
# Runs Broadside on one machine: a database (DATABASE_URL, or a private
# PostgreSQL under ./data/postgres), the portal on $ADDR (default :8080) and
# one worker, with the starter bots on the ladder as house bots.
# Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

if [ -z "${DATABASE_URL:-}" ]; then
  base=$(scripts/postgres.sh data/postgres "${PG_PORT:-54329}")
  psql "$base" -tAc "SELECT 1 FROM pg_database WHERE datname = 'broadside'" | grep -q 1 \
    || psql "$base" -qc "CREATE DATABASE broadside"
  export DATABASE_URL=${base/\/postgres\?/\/broadside?}
fi
export BLOB_URL=${BLOB_URL:-file://$PWD/data/blobs}
# Development: webhooks may go to loopback, e-mail to a local server without TLS.
export DEV_MODE=${DEV_MODE:-true}
mkdir -p data/blobs bin

echo "run: building" >&2
go build -o bin/ ./cmd/portal ./cmd/worker ./cmd/battleship

bin/portal migrate
bin/portal seed-house-bots

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait || true
}
trap cleanup EXIT INT TERM

bin/worker &
pids+=($!)
bin/portal &
pids+=($!)
addr=${ADDR:-:8080}
[ "${addr#:}" != "$addr" ] && addr=localhost$addr
echo "run: portal on http://$addr (database $DATABASE_URL)" >&2
wait -n "${pids[@]}"
