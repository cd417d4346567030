#!/usr/bin/env bash
# Today's networks beside the papers' at about 16,384 PEs (`rica experiment modern-16k`): CCCB,
# (CB)^2, M_{x+x} and the 128x128 torus against the dragonfly (minimal, UGAL-L, UGAL-G, PAR), HyperX
# and Slim Fly under uniform, quarter and hot-spot traffic (the 1,024-PE set-up's patterns; one word
# per cycle per link, 32-word buffers, 3 +- 1-word packets), with --quick --cycles 1000: 5 rates per
# sweep, 1,000 cycles a run. Writes a figure per pattern, points.csv, table.{md,csv,json} and
# config.json into OUT.
# Usage: scripts/experiments/modern_16k.sh [OUT] [rica experiment options]   (default docs/experiments/modern-16k)
# RICA=path/to/rica overrides the binary (default build/rica; scripts/build.sh builds it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rica=${RICA:-$root/build/rica}
out=${1:-$root/docs/experiments/modern-16k}
[ $# -gt 0 ] && shift
[ -x "$rica" ] || { echo "modern_16k.sh: no rica at $rica (run scripts/build.sh or set RICA)" >&2; exit 2; }
exec "$rica" experiment modern-16k --quick --cycles 1000 --out "$out" "$@"
