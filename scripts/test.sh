#!/usr/bin/env bash
# README command (2): install what is missing, build, and run every test with ctest: the GoogleTest
# suites, the CLI scripts, the Python module's pytest suite (python/tests) and the install test
# (tests/install_tests.sh: cmake --install into a temporary prefix, examples/external built on it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --preset "${RICA_PRESET:-release}" -j "$(nproc)"
