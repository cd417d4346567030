#!/usr/bin/env bash
# Sanitizer runs (docs/reference.md, "Builds", has the times measured).
#   scripts/sanitize.sh tsan            ThreadSanitizer build (build-tsan/) and the whole ctest suite.
#                                       Suppressions: tests/tsan.supp (oneTBB's own frames, and one
#                                       lock order inside OpenMPI).
#   scripts/sanitize.sh asan            ASan + UBSan build (build-asan/) and the whole ctest suite
#                                       (UBSan halts on the first report: the asan test preset).
#   scripts/sanitize.sh debug           the debug build (build-debug/: every assertion on) and the
#                                       whole ctest suite.
#   scripts/sanitize.sh                 both, TSan first.
#   scripts/sanitize.sh tsan --subset   only the tests labelled `sanitize` less their slow cases
#                                       (tests/CMakeLists.txt: the threaded suites and the TSan
#                                       contract probe), building only their targets: what CI runs
#                                       (.ci/run).
# Exit status: 0 when every selected run is clean, else the first failing step's status.
set -euo pipefail
cd "$(dirname "$0")/.."
what=all subset=0
for a in "$@"; do
  case "$a" in
    tsan|asan|debug|all) what=$a ;;
    --subset) subset=1 ;;
    *) echo "usage: $0 [tsan|asan|debug|all] [--subset]" >&2; exit 2 ;;
  esac
done
bash scripts/setup.sh
jobs=$(nproc)
# run <preset>: configure, build (all, or the subset's targets), ctest (all, or label sanitize).
run() {
  local preset=$1 start=$SECONDS target=() label=()
  cmake --preset "$preset" >/dev/null || return
  # The subset's slow cases are named in tests/CMakeLists.txt (RICA_SANITIZE_SLOW).
  [ "$subset" = 1 ] && target=(--target sanitize_subset) label=(-L sanitize -E "$(cat "build-$preset/sanitize_subset_exclude")")
  cmake --build --preset "$preset" -j "$jobs" "${target[@]}" || return
  local built=$SECONDS
  # The TSan preset's environment sets TSAN_OPTIONS (suppressions, history_size=7, halt_on_error=1).
  ctest --preset "$preset" -j "$jobs" "${label[@]}" || return
  echo "sanitize.sh $preset: build $((built - start)) s, tests $((SECONDS - built)) s" >&2
}
if [ "$what" = debug ]; then run debug; exit; fi
if [ "$what" != asan ]; then run tsan; fi
if [ "$what" != tsan ]; then run asan; fi
