#!/usr/bin/env bash
# The link-buffer layouts side by side, in one run (issue 26, "Buffer layout as a policy";
# docs/runtime.md "Buffer layout"): the slot pool (rica's default) against the inline-packet ring
# (boost::lockfree::spsc_queue of 32 packets, built with -DRICA_BUFFER_LAYOUT=ring).
#
# 1. Hop rate: async torus:32x32, uniform, saturated (rate 1, 200 packets/PE), 2 threads, in ABBA
#    order (pool ring ring pool, R rounds) so that the host's drift cancels; medians per layout,
#    the ratio ring / pool of the medians and the median of the rounds' ratios.
#    The decision rule: keep the ring only if it is >= 1.15 and the memory limits hold.
# 2. Memory per PE, the machine's own: peak RSS of the run minus the peak RSS of the same binary
#    running torus:2x2 (the process before any sizeable machine: binary, libraries, oneTBB),
#    over the PEs. torus8:32 (saturated, 2 threads; limit 16 KB) and torus:256x256 (4 packets/PE;
#    the ring's buffers are a fixed size per PE, so this is its figure at any size);
#    with --large also torus:1024x512 (4 packets/PE; limit 4 KB) for the pool. The ring would need
#    about 9.7 GB there (8 buffers x 2,304 bytes a PE), which this script does not try.
# Wall-clock rates mean something only on a quiet host: on a shared one, read the ratio of the
# same round and expect +-20 % between runs. scripts/engine_costs.sh counts instructions and
# simulated misses instead (immune to the noise).
#
# Usage: scripts/bench_buffer_layout.sh [--rounds R] [--pool DIR] [--ring DIR] [--ring-ref REF]
#                                       [--no-memory] [--large]
#   --pool DIR     build directory of the pool layout (default build/)
#   --ring DIR     build directory of the ring layout (default build-ring/); when it has no rica,
#                  it is configured and built there from git ref REF (default ring-experiment,
#                  the branch that keeps the ring) checked out in a temporary worktree
#   --rounds R     ABBA rounds (default 5: 10 runs of each layout)
# Prints a table; exit status 2 on a wrong argument or a build that is not the layout it should be.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pool_dir=$root/build
ring_dir=$root/build-ring
ring_ref=ring-experiment
rounds=5
memory=1
large=0
usage() { echo "bench_buffer_layout: $1 (see the usage at the top of scripts/bench_buffer_layout.sh)" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) [ $# -ge 2 ] || usage "--rounds needs a number"; rounds=$2; shift 2 ;;
    --pool) [ $# -ge 2 ] || usage "--pool needs a build directory"; pool_dir=$2; shift 2 ;;
    --ring) [ $# -ge 2 ] || usage "--ring needs a build directory"; ring_dir=$2; shift 2 ;;
    --ring-ref) [ $# -ge 2 ] || usage "--ring-ref needs a git ref"; ring_ref=$2; shift 2 ;;
    --no-memory) memory=0; shift ;;
    --large) large=1; shift ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]?$ ]] || usage "--rounds must be 1 to 99 (got '$rounds')"

# layout_of DIR: the layout DIR/rica was built with, by what it does: a ring build refuses buffers
# that could hold more than its 32 packets (naming RICA_BUFFER_LAYOUT=ring); a pool build runs them.
layout_of() {
  local err
  if err=$("$1/rica" run torus:2x2 --buffer-words 66 --packet-words 1:0 --packets 1 --quiet --threads 1 2>&1 >/dev/null); then
    echo pool
  elif [[ $err == *RICA_BUFFER_LAYOUT=ring* ]]; then
    echo ring
  else
    echo "unknown (rica run failed: $err)"
  fi
}

[ -x "$pool_dir/rica" ] || usage "$pool_dir/rica not found: build first (cmake --preset release && cmake --build build --target rica)"
[ "$(layout_of "$pool_dir")" = pool ] || usage "$pool_dir/rica has the $(layout_of "$pool_dir") layout, not the pool"
tmp=$(mktemp -d)
wt=
cleanup() {
  [ -z "$wt" ] || git -C "$root" worktree remove --force "$wt" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
if [ ! -x "$ring_dir/rica" ]; then
  git -C "$root" rev-parse --verify -q "$ring_ref^{commit}" >/dev/null ||
    usage "$ring_dir/rica not found and git ref '$ring_ref' does not exist (fetch the branch, or pass --ring DIR)"
  echo "building the ring layout from $ring_ref into $ring_dir (a temporary worktree; several minutes) ..."
  wt=$tmp/src
  git -C "$root" worktree add -q --detach "$wt" "$ring_ref"
  if ! { cmake -S "$wt" -B "$ring_dir" -DCMAKE_BUILD_TYPE=Release -DRICA_BUFFER_LAYOUT=ring \
           -DRICA_BUILD_TESTS=OFF -DRICA_BUILD_BENCH=OFF -DRICA_BUILD_PYTHON=OFF &&
         cmake --build "$ring_dir" -j2 --target rica; } >"$tmp/build.log" 2>&1; then
    echo "bench_buffer_layout: building $ring_ref failed: $(tail -n 3 "$tmp/build.log")" >&2
    exit 1
  fi
fi
[ "$(layout_of "$ring_dir")" = ring ] || usage "$ring_dir/rica has the $(layout_of "$ring_dir") layout, not the ring"
# field FILE KEY: one number from a run's JSON.
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
# run DIR OUT ARGS...: one quiet run into OUT (json); a failure stops the script with its message.
run() {
  local dir=$1 out=$2
  shift 2
  "$dir/rica" run "$@" --quiet --json "$out" >/dev/null 2>"$tmp/err" ||
    { echo "bench_buffer_layout: $dir/rica run $* failed: $(tail -n 2 "$tmp/err")" >&2; exit 1; }
}

echo "hop rate: async torus:32x32 uniform, rate 1, 200 packets/PE, 2 threads; ABBA x $rounds"
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
: >"$tmp/rates"
for ((r = 1; r <= rounds; ++r)); do
  for l in pool ring ring pool; do
    dir=$pool_dir
    [ $l = ring ] && dir=$ring_dir
    run "$dir" "$tmp/h.json" torus:32x32 --traffic uniform --rate 1 --packets 200 --threads 2 --engine async
    echo "$r $l $(field "$tmp/h.json" packet_hops_per_s)" >>"$tmp/rates"
  done
done
python3 - "$tmp/rates" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
by = {"pool": [], "ring": []}
per_round = {}
for r, layout, rate in rows:
    by[layout].append(float(rate) / 1e6)
    per_round.setdefault(r, {}).setdefault(layout, []).append(float(rate) / 1e6)
for layout, v in by.items():
    print(f"  {layout}: median {statistics.median(v):6.2f} M hops/s  (range {min(v):.2f} - {max(v):.2f}, {len(v)} runs)")
ratio = statistics.median(by["ring"]) / statistics.median(by["pool"])
rounds = [sum(x["ring"]) / sum(x["pool"]) for x in per_round.values()]
print(f"  ring / pool: {ratio:.3f} (medians); rounds' ratios median {statistics.median(rounds):.3f},"
      f" range {min(rounds):.3f} - {max(rounds):.3f}")
print(f"  decision rule (ring kept only at >= 1.15): {'met' if ratio >= 1.15 else 'not met'}")
PY

[ $memory = 1 ] || exit 0
echo "memory, the machine's own (peak RSS minus the same binary's torus:2x2 run), per PE:"
mem() {  # mem LABEL ARGS...: one line with both layouts (or the pool only, for --large)
  local label=$1
  shift
  local line
  line=$(printf '  %-40s' "$label")
  for l in pool ring; do
    dir=$pool_dir
    [ $l = ring ] && dir=$ring_dir
    if [ "$label" = "torus:1024x512, 4 packets/PE" ] && [ $l = ring ]; then
      line+="   ring: not run"
      continue
    fi
    run "$dir" "$tmp/base.json" torus:2x2 --packets 1 --threads 2
    run "$dir" "$tmp/m.json" "$@"
    line+=$(python3 - "$tmp/base.json" "$tmp/m.json" "$l" <<'PY'
import json, sys
b, m = (json.load(open(p)) for p in sys.argv[1:3])
own = (m["peak_rss_kb"] - b["peak_rss_kb"]) * 1024 / m["pes"]
print(f"   {sys.argv[3]}: {own / 1024:6.2f} KB/PE ({m['peak_rss_kb'] / 1024:.0f} MB peak)", end="")
PY
)
  done
  echo "$line"
}
mem "torus8:32, saturated, 2 threads (<= 16 KB)" torus8:32 --threads 2
mem "torus:256x256, 4 packets/PE, 2 threads" torus:256x256 --packets 4 --threads 2
if [ $large = 1 ]; then
  mem "torus:1024x512, 4 packets/PE" torus:1024x512 --packets 4 --threads 2
fi
