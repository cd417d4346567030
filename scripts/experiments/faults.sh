#!/usr/bin/env bash
# Faults (docs/faults.md): throughput and latency against 0, 1, 2, 4, 8, 16 failed links on the
# papers' 1,024-PE networks (2D torus, CCCB, c-Banyan, UB(2,10), M_{x+x}), rerouted by the generic
# tables; the de Bruijn network with and without one spare PE per necklace against failed PEs.
# Writes faults.png, spares.png, points.csv, table.{md,json} and config.json into OUT (default
# docs/experiments/faults).
# Usage: scripts/experiments/faults.sh [OUT] [rica experiment options, e.g. --quick --jobs 2]
# RICA=path/to/rica overrides the binary (default build/rica; scripts/build.sh builds it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rica=${RICA:-$root/build/rica}
out=${1:-$root/docs/experiments/faults}
[ $# -gt 0 ] && shift
[ -x "$rica" ] || { echo "faults.sh: no rica at $rica (run scripts/build.sh or set RICA)" >&2; exit 2; }
exec "$rica" experiment faults --out "$out" "$@"
