#!/usr/bin/env bash
# Runs the season unattended under faults for SOAK_MINUTES (default 10) and
# checks its invariants: see docs/operations.md, "The soak". Exits non-zero
# when any invariant fails. Everything it starts lives under data/soak.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec go run ./scripts/soak
