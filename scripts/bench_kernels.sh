#!/usr/bin/env bash
# The HPC kernels (apps/hpc: fft, cg, matmul, bfs; docs/apps.md, issue 42) at their default sizes on
# 1,024 PEs (torus:32x32) on the cycle engine: the speed target is each within a minute.
#   scripts/bench_kernels.sh [build-dir] [threads]
# Prints a Markdown table: wall seconds of the whole `rica run` (graph generation and the serial
# verification included), completion cycles, packets, peak memory. JSON per run in $OUT (default
# /tmp/rica-kernels). The host may be shared: wall-clock figures are noisy.
set -euo pipefail
B=${1:-build}
THREADS=${2:-1}
OUT=${OUT:-/tmp/rica-kernels}
TOPO=${TOPO:-torus:32x32}
mkdir -p "$OUT"
echo "| kernel | wall (s) | completion (cycles) | packets | peak RSS (MB) |"
echo "|---|---:|---:|---:|---:|"
for app in fft cg matmul bfs; do
  /usr/bin/time -f "%e %M" -o "$OUT/$app.time" "$B/rica" run "$TOPO" --engine cycle --threads "$THREADS" --app "$app" \
    --json "$OUT/$app.json" > /dev/null 2> "$OUT/$app.err"
  read -r wall rss < "$OUT/$app.time"
  python3 - "$OUT/$app.json" "$app" "$wall" "$rss" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(f"| {sys.argv[2]} | {float(sys.argv[3]):.1f} | {j['cycles_run']} | {j['injected']} | {int(sys.argv[4]) // 1024} |")
PY
done
