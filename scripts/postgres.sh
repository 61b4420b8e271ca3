#!/usr/bin/env bash
# Starts a private PostgreSQL server for Broadside from the machine's own
# PostgreSQL binaries, with its data under a folder of ours, and prints its
# URL. Used by `make run` and `make test` when no database is configured and
# no Docker engine is available. Usage: scripts/postgres.sh DATA_DIR PORT
# Stop it with: scripts/postgres.sh --stop DATA_DIR (as root or not).
set -euo pipefail

stop=""
if [ "${1:-}" = "--stop" ]; then
  stop=1
  shift
fi
datadir=$(realpath -m "${1:-data/postgres}")
port=${2:-54329}

bindir=""
if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
  bindir=$(pg_config --bindir)
else
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "postgres: no PostgreSQL server binaries found (install the postgresql package)" >&2
  exit 1
fi

# PostgreSQL refuses to run as root: run it as the postgres user then.
as_pg() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
  as_pg() { runuser -u postgres -- "$@"; }
fi

if [ -n "$stop" ]; then
  if as_pg "$bindir/pg_ctl" -D "$datadir" status >/dev/null 2>&1; then
    as_pg "$bindir/pg_ctl" -D "$datadir" -w stop >/dev/null
    echo "postgres: stopped the server of $datadir" >&2
  else
    echo "postgres: no server runs on $datadir" >&2
  fi
  exit 0
fi

mkdir -p "$datadir"
if [ "$(id -u)" -eq 0 ]; then chown postgres "$datadir"; chmod 700 "$datadir"; fi
sockdir="$datadir/socket"

if [ ! -f "$datadir/PG_VERSION" ]; then
  as_pg "$bindir/initdb" -D "$datadir" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
fi
if ! as_pg "$bindir/pg_ctl" -D "$datadir" status >/dev/null 2>&1; then
  as_pg mkdir -p "$sockdir"
  as_pg "$bindir/pg_ctl" -D "$datadir" -l "$datadir/server.log" -w \
    -o "-p $port -k $sockdir -c listen_addresses=127.0.0.1 -c max_connections=200${PG_EXTRA_OPTS:+ $PG_EXTRA_OPTS}" start >/dev/null
fi
echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
