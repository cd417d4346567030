#!/bin/bash
# Drain and flush cost at 1,024 PEs (CCCB, c-Banyan, 2D torus) at low and saturated load:
# `rica os` time-shares the whole machine between a uniform and a hot-spot job.
# Usage: scripts/bench_os.sh [OUT_DIR]   (default bench-os/); figures in OUT_DIR/<network>/.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-bench-os}"
rica="$here/build/rica"
[ -x "$rica" ] || bash "$here/scripts/build.sh"
for net in cccb:n=4 cbanyan:n=7,S=8 torus:32x32; do
  dir="$out/$(echo "$net" | tr ':,=' '___')"
  echo "== $net"
  "$rica" os "$net" --rate 0.002,0.05 --slice 500,2000 --packets 20 --threads 2 --out "$dir" --quiet
done
