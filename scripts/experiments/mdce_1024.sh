#!/usr/bin/env bash
# The MDCE paper's dynamic experiment (§5, Figs 7-11): 1,024 PEs, nine networks, five traffic
# patterns, link time = in+out degree, 32-word buffers, 10,000 cycles. Writes figures (PNG, SVG),
# points.csv, table.{md,csv,json} and config.json into OUT (default docs/experiments/mdce-1024).
# Usage: scripts/experiments/mdce_1024.sh [OUT] [rica experiment options, e.g. --quick --jobs 2]
# RICA=path/to/rica overrides the binary (default build/rica; scripts/build.sh builds it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rica=${RICA:-$root/build/rica}
out=${1:-$root/docs/experiments/mdce-1024}
[ $# -gt 0 ] && shift
[ -x "$rica" ] || { echo "mdce_1024.sh: no rica at $rica (run scripts/build.sh or set RICA)" >&2; exit 2; }
exec "$rica" experiment mdce-1024 --out "$out" "$@"
