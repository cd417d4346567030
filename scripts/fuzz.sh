#!/usr/bin/env bash
# Longer fuzzing runs of every input parser (tests/fuzz; docs/reference.md, "Fuzzing").
#   scripts/fuzz.sh [SECONDS] [TARGET...]   each target (default: all) SECONDS (default 600) from
#                                           seed 1, one after the other, in the `fuzz` preset's build
#                                           (clang, libFuzzer + ASan + UBSan; build-fuzz/).
# New inputs that reach new code go to build-fuzz/tests/fuzz/corpus_<target>/ (the committed seed
# corpus tests/fuzz/<target>/ is only read). A crash leaves build-fuzz/fuzz-findings/<target>/
# crash-*: reproduce it with build-fuzz/tests/fuzz/fuzz_<target> FILE, fix it, and add the file to
# tests/fuzz/<target>/ (every build replays that corpus under ctest, fuzz_replay_<target>).
# Prints one line per target: seconds, executions, corpus size, findings. Exit status: 0 when no
# target found anything, 1 otherwise (2: usage or build failure).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
case "$seconds" in ''|*[!0-9]*) echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2 ;; esac
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (scripts/setup.sh installs clang and libclang-rt-14-dev)" >&2; exit 2; }
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=($(sed -n 's/^rica_fuzz_target(\([a-z_0-9]*\) .*/\1/p' tests/fuzz/CMakeLists.txt))
fi
export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-$(command -v ccache || true)}
cmake --preset fuzz >/dev/null || exit 2
cmake --build --preset fuzz -j "$(nproc)" || exit 2
found=0
for t in "${targets[@]}"; do
  bin=build-fuzz/tests/fuzz/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz.sh: no target '$t' (tests/fuzz/CMakeLists.txt lists them)" >&2; exit 2; }
  work=build-fuzz/tests/fuzz/corpus_$t findings=build-fuzz/fuzz-findings/$t
  mkdir -p "$work" "$findings"
  log=build-fuzz/fuzz-findings/$t.log
  start=$SECONDS
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$bin" -seed=1 -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$work" "tests/fuzz/$t" >"$log" 2>&1
  status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  crashes=$(find "$findings" -type f | wc -l)
  echo "fuzz $t: $((SECONDS - start)) s, ${execs:-?} executions, corpus $(find "$work" -type f | wc -l) inputs, status $status, findings $crashes"
  if [ "$status" != 0 ] || [ "$crashes" != 0 ]; then
    found=1
    grep -m3 -E "ERROR|runtime error|deadly signal|uncaught" "$log" | sed 's/^/  /'
  fi
done
exit "$found"
