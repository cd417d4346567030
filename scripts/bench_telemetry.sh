#!/usr/bin/env bash
# Cost of telemetry over time (issue 30): `rica run` with and without --telemetry W (default
# W = 1000: cycles on the cycle engine, microseconds on the async engine, where each window stops
# the world; defaults::telemetry::window; CSVs written beside --json), alternating the two, REPS
# times each; the figure is the ratio of the fastest wall times (the runs' own wall_s, machine
# build and file writing excluded). Uniform traffic, one cycle per link hop (cycle engine); the
# async rows send PACKETS packets per PE. Wall times need a quiet host.
# Usage: scripts/bench_telemetry.sh [build-dir]   (prints a Markdown table)
set -euo pipefail
B=${1:-build}
OUT=${OUT:-/tmp/rica-bench-telemetry}
REPS=${REPS:-5}
W=${W:-1000}
CYCLES=${CYCLES:-10000}
PACKETS=${PACKETS:-200}
THREADS=${THREADS:-2}
mkdir -p "$OUT"
echo "| topology | engine | rate | threads | cycles | windows | off: wall s (min of $REPS) | on: wall s | on/off |"
echo "|---|---|---|---|---|---|---|---|---|"
bench() {  # spec rate [engine]
  local engine=${3:-cycle} tag; tag=$(echo "$1-$2-$engine" | tr ':,=' '___')
  local args=(--engine "$engine" --rate "$2" --threads "$THREADS" --quiet)
  if [ "$engine" = cycle ]; then args+=(--link-cycles 1 --cycles "$CYCLES"); else args+=(--packets "$PACKETS"); fi
  for r in $(seq "$REPS"); do
    "$B/rica" run "$1" "${args[@]}" --json "$OUT/$tag-off-$r.json" > /dev/null
    "$B/rica" run "$1" "${args[@]}" --json "$OUT/$tag-on-$r.json" --telemetry "$W" > /dev/null
  done
  python3 - "$OUT" "$tag" "$REPS" <<'PY'
import json, sys
out, tag, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
off = [json.load(open(f"{out}/{tag}-off-{r}.json")) for r in range(1, reps + 1)]
on = [json.load(open(f"{out}/{tag}-on-{r}.json")) for r in range(1, reps + 1)]
assert all(a["delivered"] == b["delivered"] and a.get("cycles_run") == b.get("cycles_run") for a, b in zip(off, on))
a, b = min(j["wall_s"] for j in off), min(j["wall_s"] for j in on)
j = on[0]
print(f"| {j['topology']} | {j['config']['engine']} | {j['config']['rate']} | {j['threads']} | {j.get('cycles_run', '-')} | "
      f"{j['telemetry']['windows']} | {a:.3f} | {b:.3f} | {b / a:.3f} |")
PY
}
bench torus:32x32 0.01
bench torus:32x32 0.1
bench cccb:n=4 0.02
bench torus:64x64 0.01
bench torus:32x32 0.1 async
bench cccb:n=4 0.1 async
