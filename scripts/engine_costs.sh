#!/usr/bin/env bash
# What one packet-hop costs the engines, counted rather than timed: instructions, simulated L1 and
# L2 data misses, and mispredicted branches per hop, from valgrind's cachegrind on one thread.
# The counts are the same on every run and every host (fixed cache model: 32 KB 8-way L1,
# 1 MB 16-way L2, 64-byte lines), so a change of 1 % shows, where wall-clock rates on a shared
# host move by 20 %. Each workload runs twice, short and long, and the difference is divided by
# the difference in hops: start-up and the end's checks cancel out.
# Counts are not time: on 2026-11-24 a 7 - 12 % cut of the cycle engine's L2 misses made no
# difference measurable in wall time (docs/runtime.md). Confirm a change with alternating runs.
# Usage: scripts/engine_costs.sh [build-dir] [workload ...]   (workloads: async cycle cycle64k;
# default all). Needs valgrind (scripts/setup.sh installs it). Takes 3-6 minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$root/build}
[ $# -gt 0 ] && shift
rica=$B/rica
[ -x "$rica" ] || { echo "engine_costs: $rica not found: build first (scripts/build.sh)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "engine_costs: valgrind not found: run scripts/setup.sh" >&2; exit 2; }
workloads=("$@")
[ ${#workloads[@]} -eq 0 ] && workloads=(async cycle cycle64k)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure NAME ARGS...: one cachegrind run; prints "instructions d1 l2 mispredicts hops".
measure() {
  local name=$1
  shift
  valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --cachegrind-out-file=/dev/null \
    --I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64 \
    "$rica" run "$@" --threads 1 --quiet --json "$tmp/$name.json" >/dev/null 2>"$tmp/$name.err" ||
    { echo "engine_costs: rica run $* failed: $(tail -n 3 "$tmp/$name.err")" >&2; exit 1; }
  python3 - "$tmp/$name.err" "$tmp/$name.json" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
def count(label):
    m = re.search(label + r":\s+([\d,]+)", text)
    return int(m.group(1).replace(",", "")) if m else 0
hops = json.load(open(sys.argv[2]))["packet_hops"]
print(count(r"I\s+refs"), count(r"D1\s+misses"), count(r"LLd\s+misses"), count(r"Mispredicts"), hops)
PY
}

# per_hop LABEL SHORT_ARGS -- LONG_ARGS: the difference of two runs, per hop.
per_hop() {
  local label=$1
  shift
  local short=() long=()
  while [ "$1" != "--" ]; do short+=("$1"); shift; done
  shift
  long=("$@")
  read -r i1 d1 l1 b1 h1 <<<"$(measure short "${short[@]}")"
  read -r i2 d2 l2 b2 h2 <<<"$(measure long "${long[@]}")"
  python3 - "$label" "$i1" "$d1" "$l1" "$b1" "$h1" "$i2" "$d2" "$l2" "$b2" "$h2" <<'PY'
import sys
label = sys.argv[1]
a = [int(x) for x in sys.argv[2:7]]
b = [int(x) for x in sys.argv[7:12]]
dh = b[4] - a[4]
if dh <= 0:
    sys.exit(f"engine_costs: {label}: the long run made no more hops than the short one")
i, d, l, m = ((b[k] - a[k]) / dh for k in range(4))
print(f"{label:44s} {i:8.0f} {d:8.2f} {l:8.2f} {m:8.2f} {dh:>11,d}")
PY
}

echo "per packet-hop, one thread (cachegrind; L1 32 KB, L2 1 MB):"
printf '%-44s %8s %8s %8s %8s %11s\n' workload instr "L1 miss" "L2 miss" mispred hops
for w in "${workloads[@]}"; do
  case $w in
    async)
      per_hop "async torus:32x32 saturated" torus:32x32 --packets 50 -- torus:32x32 --packets 200 ;;
    cycle)
      c=(torus:32x32 --engine cycle --rate 0.05 --link-cycles 1 --packet-words 1:0)
      per_hop "cycle torus:32x32 5%, 1-word, 1-cycle links" "${c[@]}" --cycles 1000 -- "${c[@]}" --cycles 3000 ;;
    cycle64k)
      c=(torus:256x256 --engine cycle --rate 0.01 --link-cycles 1 --packet-words 1:0)
      per_hop "cycle torus:256x256 1%, same settings" "${c[@]}" --cycles 20 -- "${c[@]}" --cycles 40 ;;
    *) echo "engine_costs: unknown workload '$w' (async, cycle, cycle64k)" >&2; exit 2 ;;
  esac
done
