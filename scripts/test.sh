#!/usr/bin/env bash
# Runs every test of the project. Tests find PostgreSQL through
# TEST_DATABASE_URL; when it is unset and no Docker engine is running, a
# private PostgreSQL is started under ./data/test-postgres for them.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --test

if [ -z "${TEST_DATABASE_URL:-}" ] && ! docker info >/dev/null 2>&1; then
  TEST_DATABASE_URL=$(PG_EXTRA_OPTS="-c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    scripts/postgres.sh data/test-postgres "${TEST_PG_PORT:-54330}")
  export TEST_DATABASE_URL
fi

scripts/vet.sh

# A Python bot starts once a turn, and Python bots play most of the
# suite's turns. Where pyenv's shims lead PATH, python3 is the
# distribution's (pyenv's "system" version first, as its shims and the
# platform read PYENV_VERSION), which on the reference machine starts in a
# quarter of the time of pyenv's, whose site-packages load a .pth hook at
# every start. python and python2 still come from pyenv's versions, so the
# shims' resolution stays under test.
if [ -z "${PYENV_VERSION:-}" ] && [ -x /usr/bin/python3 ] && command -v pyenv >/dev/null 2>&1; then
  PYENV_VERSION="system:$(pyenv global | paste -sd: -)"
  export PYENV_VERSION
fi

# The tests run through scripts/testsummary, which prints what go test
# would and ends with how many tests skipped and why. Tests skip where the
# machine lacks a sandbox or toolchain they need; with
# BROADSIDE_TEST_REQUIRE_ALL=1 (CI) they fail instead, and any skip left
# fails the run.
summary=$(mktemp -d)
trap 'rm -rf "$summary"' EXIT
go build -o "$summary/testsummary" ./scripts/testsummary
max_skips=-1
case "${BROADSIDE_TEST_REQUIRE_ALL:-}" in
  "" | 0 | false) ;;
  *) max_skips=0 ;;
esac
# -timeout bounds each package's test binary: cmd/portal's browser tests
# take 7 minutes on a quiet machine and over 20 on a slow one beside the
# other packages (process starts three times as costly), so 45 minutes
# stops a hang without failing a slow machine.
#
# go test runs the packages in the order named, two at a time: the longest
# first, each beside the others, so that the suite does not end with one
# long package running alone.
module=$(go list -m)
long=(cmd/portal internal/jobs internal/build cmd/battleship internal/sandbox internal/web
  internal/game/entelect internal/game/hitandsunk internal/game/deepship internal/game/brainjar internal/blob)
pkgs=("${long[@]/#/$module/}")
while read -r p; do
  case " ${pkgs[*]} " in *" $p "*) ;; *) pkgs+=("$p") ;; esac
done < <(go list ./...)
"$summary/testsummary" -max-skips="$max_skips" -- go test -json -p 2 -timeout 45m -count=1 "$@" "${pkgs[@]}"
