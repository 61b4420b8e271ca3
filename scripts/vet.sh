#!/usr/bin/env bash
# Static checks of the whole module: go vet, staticcheck, and govulncheck
# where its vulnerability database can be reached. scripts/setup.sh --test
# installs the two checkers, at the versions pinned there.
#
# GOVULNDB: the vulnerability database govulncheck reads (default its own,
# https://vuln.go.dev); a file:// URL reads a local copy (docs/operations.md).
set -euo pipefail
cd "$(dirname "$0")/.."

gobin=$(go env GOPATH)/bin
# The pinned versions setup.sh installs, else whichever is on PATH.
tool() { if [ -x "$gobin/$1" ]; then echo "$gobin/$1"; else command -v "$1" || echo "$1"; fi; }

echo "vet: go vet" >&2
go vet ./...

staticcheck=$(tool staticcheck)
if ! [ -x "$staticcheck" ]; then
  echo "vet: staticcheck is not installed: run scripts/setup.sh --test" >&2
  exit 1
fi
echo "vet: staticcheck" >&2
"$staticcheck" ./...

govulncheck=$(tool govulncheck)
if ! [ -x "$govulncheck" ]; then
  echo "vet: govulncheck is not installed: run scripts/setup.sh --test" >&2
  exit 1
fi
db=${GOVULNDB:-https://vuln.go.dev}
# Machines without access to the database skip the check instead of
# failing: an operator runs it where the database is reachable.
case $db in
http://* | https://*)
  if ! curl -fsS -o /dev/null --max-time 15 "$db/index/db.json.gz" 2>/dev/null; then
    echo "vet: govulncheck skipped: its database $db cannot be reached from this machine" \
      "(see docs/operations.md, \"Known vulnerabilities\")" >&2
    exit 0
  fi
  ;;
esac
echo "vet: govulncheck ($db)" >&2
"$govulncheck" -db "$db" ./...
