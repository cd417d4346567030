#!/usr/bin/env bash
# Installs missing dependencies, then configures and builds rica (Release preset, build/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset "${RICA_PRESET:-release}" >/dev/null
cmake --build --preset "${RICA_PRESET:-release}" -j "$(nproc)"
