#!/usr/bin/env bash
# Today's networks beside the papers' at about 1,024 PEs: CCCB, (CB)^2, M_{x+x} and the 32x32 torus
# against the dragonfly (minimal, UGAL-L, UGAL-G, PAR), HyperX and Slim Fly under uniform, quarter
# and hot-spot traffic (one word per cycle per link, 32-word buffers, 3 +- 1-word packets, 4,000
# cycles). Writes figures, points.csv, table.{md,csv,json} and config.json into OUT.
# Usage: scripts/experiments/modern.sh [OUT] [rica experiment options]   (default docs/experiments/modern)
# RICA=path/to/rica overrides the binary (default build/rica; scripts/build.sh builds it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rica=${RICA:-$root/build/rica}
out=${1:-$root/docs/experiments/modern}
[ $# -gt 0 ] && shift
[ -x "$rica" ] || { echo "modern.sh: no rica at $rica (run scripts/build.sh or set RICA)" >&2; exit 2; }
exec "$rica" experiment modern --out "$out" "$@"
