#!/usr/bin/env bash
# Sanitizer runs (not part of CI: each build takes tens of minutes on 2 cores).
#   scripts/sanitize.sh tsan   ThreadSanitizer build (build-tsan/) and the concurrent suites: both
#                              engines, link buffers, applications, the OS layer, the channel load.
#                              Suppressions: tests/tsan.supp (oneTBB's own frames only).
#   scripts/sanitize.sh asan   ASan + UBSan build (build-asan/) and every test, CLI tests included.
#   scripts/sanitize.sh        both, TSan first.
# Exit status: 0 when every selected run is clean, else the first failing ctest's status.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
case "$what" in tsan|asan|all) ;; *) echo "usage: $0 [tsan|asan|all]" >&2; exit 2;; esac
bash scripts/setup.sh
jobs=$(nproc)
if [ "$what" != asan ]; then
  cmake --preset tsan
  cmake --build --preset tsan -j "$jobs"
  # The preset's environment sets TSAN_OPTIONS (suppressions, history_size=7, halt_on_error=1).
  ctest --preset tsan -j "$jobs" -R 'Engine|Cycle|Link|Reduce|Os|ChannelLoad'
fi
if [ "$what" != tsan ]; then
  cmake --preset asan
  cmake --build --preset asan -j "$jobs"
  ctest --preset asan -j "$jobs"
fi
