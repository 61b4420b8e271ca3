#!/usr/bin/env bash
# Prints the file:// URL of a local copy of the Go vulnerability database,
# made from the newest golang.org/x/vulndb module on the Go module proxy.
#
# The Go team publishes the database's reports twice: as the static site
# https://vuln.go.dev that govulncheck reads by default, and as OSV files in
# the golang.org/x/vulndb module (data/osv), which the module proxy serves
# and the checksum database verifies. A machine that reaches the proxy but
# not vuln.go.dev (a CI runner on a closed network) can therefore still check:
# this script indexes the module's OSV files with the vulndb project's own
# indexer (cmd/indexdb) into data/vulndb/VERSION, once per version.
set -euo pipefail
cd "$(dirname "$0")/.."

info=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json golang.org/x/vulndb@latest)
field() { printf '%s\n' "$info" | sed -n "s/^[[:space:]]*\"$1\": \"\(.*\)\",\{0,1\}$/\1/p" | head -n 1; }
version=$(field Version)
src=$(field Dir)
if [ -z "$version" ] || ! [ -d "$src/data/osv" ]; then
  echo "vulndb: golang.org/x/vulndb could not be downloaded: $info" >&2
  exit 1
fi

out=$PWD/data/vulndb/$version
if ! [ -f "$out/index/db.json" ]; then
  echo "vulndb: indexing golang.org/x/vulndb@$version into $out" >&2
  tmp=$(mktemp -d "$PWD/data/vulndb.XXXXXX" 2>/dev/null || { mkdir -p data && mktemp -d "$PWD/data/vulndb.XXXXXX"; })
  trap 'rm -rf "$tmp"' EXIT
  go run "golang.org/x/vulndb/cmd/indexdb@$version" -vulns "$src/data/osv" -out "$tmp/db" >&2
  # One copy is enough: the older versions go.
  rm -rf data/vulndb
  mkdir -p data/vulndb
  mv "$tmp/db" "$out"
fi
echo "file://$out"
