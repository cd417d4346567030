#!/usr/bin/env bash
# Saturation throughput against the channel-load bound, per network (uniform traffic, cycle
# engine, link time = sender's degree, 3 +- 1-word packets, 32-word buffers, round-robin
# arbitration as in the experiments). For each network: the bound B (`rica bound`), then a sweep
# at 0.5 .. 1.3 x B; saturation = the largest accepted throughput. Prints a Markdown table.
# Usage: scripts/saturation_table.sh [build-dir] [out-dir] [spec ...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$root/build}; OUT=${2:-$root/out/saturation}
shift $(( $# > 2 ? 2 : $# ))
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(omega:10 fattree:10 hypercube:10 cccb:n=4 cb2:n=4 cbanyan:n=7,S=8 ccc:n=7,S=8
  debruijn:10 torus8:32 mxx:32 torus:8x8x16 torus:32x32 mesh:32x32)
mkdir -p "$OUT"
echo "| network | bound | saturation | / bound |"
echo "|---|---|---|---|"
for s in "${specs[@]}"; do
  d="$OUT/$(echo "$s" | tr ':,=' '___')"
  "$B/rica" bound "$s" --json "$d.bound.json" >/dev/null
  bound=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); r=j[0] if isinstance(j,list) else j; print(r.get('bound', r.get('saturation_bound')))" "$d.bound.json")
  rates=$(python3 -c "import sys; b=float(sys.argv[1]); print(','.join('%.6f' % min(1.0, b*f) for f in (0.5,0.7,0.8,0.9,1.0,1.1,1.3)))" "$bound")
  "$B/rica" sweep "$s" --rates "$rates" --cycles 10000 --warmup 1000 --arbitration rr --jobs 0 --out "$d" --no-plot >/dev/null
  python3 - "$s" "$bound" "$d" <<'PY'
import csv, glob, sys
spec, bound, d = sys.argv[1], float(sys.argv[2]), sys.argv[3]
acc = max(float(r['accepted']) for f in glob.glob(d + '/*.csv') for r in csv.DictReader(open(f)) if 'accepted' in r)
print(f"| `{spec}` | {bound:.4f} | {acc:.4f} | {acc / bound:.2f} |")
PY
done
