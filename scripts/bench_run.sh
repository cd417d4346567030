#!/usr/bin/env bash
# Benchmark of the async engine (issue 3 figures), in one run on this machine:
# packet-hops/s of `rica run` (uniform, rate 1, 1000 packets/PE) at 1,024 PEs with 1 and 2 threads beside the raw
# cross-core spsc_queue stream, the 64K-PE hop rate, and memory per PE up to 512K PEs.
# Usage: scripts/bench_run.sh [build-dir]   (prints a Markdown table; JSON per run in $OUT)
set -euo pipefail
B=${1:-build}
OUT=${OUT:-/tmp/rica-bench}
mkdir -p "$OUT"
raw=$("$B/bench/bench_spsc" --benchmark_filter=bm_spsc_cross_core --benchmark_format=json 2>/dev/null |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["benchmarks"][0]["items_per_second"])')
echo "raw spsc_queue cross-core stream: $(python3 -c "print(f'{$raw/1e6:.1f}')") M packets/s"
echo
echo "| topology | PEs | threads | packets/PE | M packet-hops/s | raw / rica (1 hop cost, x raw) | wall s | bytes/PE (peak RSS) |"
echo "|---|---|---|---|---|---|---|---|"
run() {  # spec threads packets
  local f="$OUT/$(echo "$1" | tr ':,=' '___')-t$2.json"
  "$B/rica" run "$1" --threads "$2" --packets "$3" --quiet --json "$f" > /dev/null
  python3 - "$f" "$raw" "$2" "$3" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); raw = float(sys.argv[2])
r = j["packet_hops_per_s"]
print(f"| {j['topology']} | {j['pes']} | {sys.argv[3]} | {sys.argv[4]} | {r/1e6:.2f} | {raw / r:.2f} | {j['wall_s']:.2f} | {j['bytes_per_pe']:.0f} |")
PY
}
for spec in torus:32x32 cccb:n=4 cbanyan:n=7,S=8 hypercube:10; do
  run "$spec" 1 1000
  run "$spec" 2 1000
done
run torus:256x256 2 20
run hypercube:16 2 20
run cccb:n=8 2 2
