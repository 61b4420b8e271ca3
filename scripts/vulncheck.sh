#!/usr/bin/env bash
# govulncheck over the whole module: the known vulnerabilities of the Go
# standard library and of the modules in go.mod that the platform's code
# calls. It fails on any finding (raise the module in go.mod, or the Go
# toolchain for the standard library) and when it cannot run at all.
#
# GOVULNDB: the database to read. By default https://vuln.go.dev where it
# can be reached, else a local copy made from the golang.org/x/vulndb module
# that the Go module proxy serves (scripts/vulndb.sh), so a machine on a
# closed network that builds Go code can still check.
set -euo pipefail
cd "$(dirname "$0")/.."

gobin=$(go env GOPATH)/bin
govulncheck=$gobin/govulncheck
[ -x "$govulncheck" ] || govulncheck=$(command -v govulncheck || true)
if [ -z "$govulncheck" ]; then
  echo "vulncheck: govulncheck is not installed: run scripts/setup.sh --test" >&2
  exit 1
fi

db=${GOVULNDB:-}
if [ -z "$db" ]; then
  if curl -fsS -o /dev/null --max-time 15 https://vuln.go.dev/index/db.json.gz 2>/dev/null; then
    db=https://vuln.go.dev
  elif ! db=$(scripts/vulndb.sh); then
    echo "vulncheck: neither https://vuln.go.dev nor the golang.org/x/vulndb module could be reached;" \
      "set GOVULNDB to a copy of the database (docs/operations.md, \"Known vulnerabilities\")" >&2
    exit 1
  fi
fi
echo "vulncheck: govulncheck ($db)" >&2
"$govulncheck" -db "$db" ./...
