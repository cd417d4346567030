#!/usr/bin/env bash
# Installs missing dependencies, then configures and builds rica (Release preset, build/).
#   bash scripts/build.sh        everything: the CLI, libraries, tests, benchmarks, Python module
#   bash scripts/build.sh demo   the first result fast: only the packages the CLI needs and only
#                                the `rica` target (README command 1, scripts/demo.sh)
# A demo-only configuration (tests, benchmarks and Python off) is marked by build/.rica-demo-only;
# the full build turns them back on and removes the mark.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${RICA_PRESET:-release}"
mode="${1:-all}"
case "$mode" in
  demo)
    bash scripts/setup.sh demo
    if [ ! -f build/CMakeCache.txt ] && [ "$preset" = release ]; then
      cmake --preset release -DRICA_BUILD_TESTS=OFF -DRICA_BUILD_BENCH=OFF -DRICA_BUILD_PYTHON=OFF >/dev/null
      touch build/.rica-demo-only
    else
      cmake --preset "$preset" >/dev/null
    fi
    cmake --build --preset "$preset" -j "$(nproc)" --target rica
    ;;
  all)
    bash scripts/setup.sh
    if [ "$preset" = release ] && [ -f build/.rica-demo-only ]; then
      cmake --preset release -DRICA_BUILD_TESTS=ON -DRICA_BUILD_BENCH=ON -DRICA_BUILD_PYTHON=ON >/dev/null
      rm -f build/.rica-demo-only
    else
      cmake --preset "$preset" >/dev/null
    fi
    cmake --build --preset "$preset" -j "$(nproc)"
    ;;
  *) echo "build.sh: unknown mode '$mode'; accepted: demo, all" >&2; exit 2 ;;
esac
