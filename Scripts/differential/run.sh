#!/usr/bin/env bash
# Puts the `okhttp` and `curl` models against the real OkHttp (Debian's libokhttp-java, on the JVM) and the real
# curl, on generated worlds served from 127.0.0.1 (Docs/peers.md §13). Exit status 0 when every world agrees.
# Usage: Scripts/differential/run.sh [WORLDS] [SEED]   (300 worlds from seed 23 unless given; at most 400)
set -euo pipefail
cd "$(dirname "$0")/../.."
MITMSIM_DIFFERENTIAL_WORLDS="${1:-300}" MITMSIM_DIFFERENTIAL_SEED="${2:-23}" exec swift test --filter RealLibraryDifferentialTests
