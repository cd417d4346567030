#!/usr/bin/env bash
# Benchmark of the cycle engine (issue 4 figures), in one run on this machine: cycles/s and
# packet-hops/s of `rica run --engine cycle` (uniform traffic, one cycle per link hop, 5,000-cycle
# window) on torus:32x32 and cccb:n=4 at 5 %, 10 % and near saturation with 1 and 2 threads, and
# at 64K PEs. Usage: scripts/bench_cycle.sh [build-dir]  (prints a Markdown table; JSON in $OUT)
set -euo pipefail
B=${1:-build}
OUT=${OUT:-/tmp/rica-bench-cycle}
CYCLES=${CYCLES:-5000}
mkdir -p "$OUT"
echo "| topology | PEs | rate | threads | cycles | cycles/s | M packet-hops/s | 2/1 | throughput | mean latency |"
echo "|---|---|---|---|---|---|---|---|---|---|"
run() {  # spec rate cycles
  local one="" f
  for t in 1 2; do
    f="$OUT/$(echo "$1" | tr ':,=' '___')-r$2-t$t.json"
    "$B/rica" run "$1" --engine cycle --link-cycles 1 --traffic uniform --rate "$2" --packets 1000000 \
      --cycles "$3" --threads "$t" --quiet --json "$f" > /dev/null
    python3 - "$f" "$t" "$one" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); t = sys.argv[2]
rate = j["packet_hops_per_s"]
ratio = "" if not sys.argv[3] else f"{rate / json.load(open(sys.argv[3]))['packet_hops_per_s']:.2f}"
print(f"| {j['topology']} | {j['pes']} | {j['rate']} | {t} | {j['cycles_run']} | {j['cycles_run'] / j['wall_s']:.0f} | "
      f"{rate / 1e6:.2f} | {ratio} | {j['throughput']:.4f} | {j['latency_mean']:.1f} |")
PY
    one=$f
  done
}
for rate in 0.05 0.1 0.2; do run torus:32x32 $rate "$CYCLES"; done
for rate in 0.05 0.1 0.15; do run cccb:n=4 $rate "$CYCLES"; done
run torus:256x256 0.01 500
run hypercube:16 0.05 300
