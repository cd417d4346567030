#!/usr/bin/env bash
# README command (2): install what is missing, build, and run every test (ctest, 2 jobs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --preset "${RICA_PRESET:-release}" -j "$(nproc)"
