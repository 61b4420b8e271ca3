#!/usr/bin/env bash
# Static checks of the whole module: go vet and staticcheck (the known
# vulnerabilities are scripts/vulncheck.sh's). scripts/setup.sh --test
# installs staticcheck at the version pinned there.
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
