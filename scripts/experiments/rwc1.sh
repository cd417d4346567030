#!/usr/bin/env bash
# The RWC-1 paper's dynamic experiment (§3.4, Figs 6-9): 1,024 PEs, six networks, four traffic
# patterns, 16-word buffers, packets of 3 +- 1 words, one word per cycle per link, 10,000 cycles.
# Writes figures, points.csv, table.{md,csv,json} and config.json into OUT (default
# docs/experiments/rwc1).
# Usage: scripts/experiments/rwc1.sh [OUT] [rica experiment options, e.g. --quick --jobs 2]
# RICA=path/to/rica overrides the binary (default build/rica; scripts/build.sh builds it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rica=${RICA:-$root/build/rica}
out=${1:-$root/docs/experiments/rwc1}
[ $# -gt 0 ] && shift
[ -x "$rica" ] || { echo "rwc1.sh: no rica at $rica (run scripts/build.sh or set RICA)" >&2; exit 2; }
exec "$rica" experiment rwc1 --out "$out" "$@"
