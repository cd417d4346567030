#!/usr/bin/env bash
# Application kernels (issue 5, docs/apps.md) on 1,024 PEs.
#   scripts/bench_apps.sh [build-dir] bench     wall-clock figures of the async engine, --threads 1 and 2 in
#                                               one run: stencil 1,024 PEs x 100 iterations, sort of 10^6
#                                               keys (prints a Markdown table)
#   scripts/bench_apps.sh [build-dir] compare   the comparison tables of docs/apps.md: every kernel on eight
#                                               1,024-PE topologies, cycle engine (deterministic, cycles)
# JSON per run in $OUT (default /tmp/rica-apps). The machine may be shared: wall-clock figures are noisy.
set -euo pipefail
B=${1:-build}
MODE=${2:-bench}
OUT=${OUT:-/tmp/rica-apps}
mkdir -p "$OUT"
TOPOS=(cccb:n=4 cb2:n=4 cbanyan:n=7,S=8 torus:32x32 torus8:32 mxx:32 hypercube:10 debruijn:10)

if [ "$MODE" = compare ]; then
  T=()
  for t in "${TOPOS[@]}"; do T+=(-t "$t"); done
  compare_run() {  # name kernel args...
    local name=$1; shift
    echo "### $name"
    echo
    echo '```'
    echo "rica app $1 ${T[*]} ${*:2} --engine cycle --threads 2"
    "$B/rica" app "$@" "${T[@]}" --engine cycle --threads 2 --json "$OUT/$name.json" 2> /dev/null | sed '/^host:/,$d'
    echo '```'
    echo
  }
  compare_run stencil5-identity stencil --grid 256x256 --iterations 20 --points 5
  compare_run stencil5-embed stencil --grid 256x256 --iterations 20 --points 5 --map embed
  compare_run stencil9-identity stencil --grid 256x256 --iterations 20 --points 9
  compare_run stencil5-random stencil --grid 256x256 --iterations 20 --points 5 --map random
  compare_run stencil9-words stencil --grid 256x256 --iterations 20 --points 9 --link-cycles words
  compare_run bitonic sort --algorithm bitonic --keys 16384
  compare_run shear sort --algorithm shear --keys 16384 --map embed
  compare_run sample sort --algorithm sample --keys 16384 --keys-per-packet 3
  exit 0
fi

[ "$MODE" = bench ] || { echo "usage: $0 [build-dir] bench|compare" >&2; exit 2; }
echo "| kernel | topology | threads | packets | packet-hops | wall s | M packets/s | M packet-hops/s | verified |"
echo "|---|---|---|---|---|---|---|---|---|"
run() {  # name threads kernel args...
  local name=$1 th=$2; shift 2
  local f="$OUT/bench-$name-t$th.json"
  "$B/rica" app "$@" --threads "$th" --quiet --json "$f" > /dev/null
  python3 - "$f" "$name" "$th" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for r in j["runs"]:
    print(f"| {sys.argv[2]} | {r['topology']} | {sys.argv[3]} | {r['delivered']} | {r['packet_hops']} | {r['wall_s']:.2f} "
          f"| {r['packets_per_s']/1e6:.2f} | {r['packet_hops_per_s']/1e6:.2f} | {r['verified']} |")
PY
}
for th in 1 2; do
  run stencil5-1024x1024-100it "$th" stencil -t torus:32x32 -t cccb:n=4 --grid 1024x1024 --iterations 100 --points 5
  run stencil9-1024x1024-100it "$th" stencil -t torus8:32 --grid 1024x1024 --iterations 100 --points 9
  run sample-1e6 "$th" sort -t torus:32x32 -t hypercube:10 --algorithm sample --keys 1000000 --keys-per-packet 3
  run bitonic-1e6 "$th" sort -t hypercube:10 --algorithm bitonic --keys 1000000 --keys-per-packet 3
done
