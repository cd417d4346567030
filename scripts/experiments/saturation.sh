#!/usr/bin/env bash
# Saturation against the channel-load bound on every 1,024-PE network rica has (uniform traffic,
# mdce-1024's set-up: link time = in+out degree, 32-word buffers, 3 +- 1-word packets, round robin,
# 10,000 cycles). Writes figures, points.csv, table.{md,csv,json} and config.json into OUT.
# Usage: scripts/experiments/saturation.sh [OUT] [rica experiment options]   (default docs/experiments/saturation)
# RICA=path/to/rica overrides the binary (default build/rica; scripts/build.sh builds it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rica=${RICA:-$root/build/rica}
out=${1:-$root/docs/experiments/saturation}
[ $# -gt 0 ] && shift
[ -x "$rica" ] || { echo "saturation.sh: no rica at $rica (run scripts/build.sh or set RICA)" >&2; exit 2; }
exec "$rica" experiment saturation --out "$out" "$@"
