#!/bin/bash
# The worked comparison of docs/os.md "Job streams": one 100-job Poisson stream at 1,024 PEs,
# (1) drain vs flush under gang scheduling with buddy allocation on cccb:n=4, (2) buddy vs random
# placement under EASY backfilling on cccb:n=4 and on torus:32x32. Every number of the docs'
# tables comes from OUT_DIR/<case>/stream.csv; the figures are OUT_DIR/<case>/*.png.
# Usage: scripts/os_stream_comparison.sh [OUT_DIR]   (default os-stream-comparison/)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-os-stream-comparison}"
docs="${2:-}"
rica="$here/build/rica"
[ -x "$rica" ] || bash "$here/scripts/build.sh"
jobs="poisson:jobs=100,rate=0.25,size=16:256,length=60,seed=1"
common=(--jobs "$jobs" --cycles-per-second 50 --rate 0.05 --threads 2 --quiet)
"$rica" os-stream cccb:n=4 --alloc buddy --sched gang --policy drain,flush --rows 4 --slice 2000 "${common[@]}" \
  --out "$out/gang_cccb"
"$rica" os-stream cccb:n=4 --alloc buddy,random --sched easy "${common[@]}" --out "$out/alloc_cccb"
"$rica" os-stream torus:32x32 --alloc buddy,random --sched easy --alone "${common[@]}" --out "$out/alloc_torus"
if [ "$docs" = --docs ]; then
  fig="$here/docs/figures/os_stream"
  mkdir -p "$fig"
  cp "$out/gang_cccb/switch_cost.png" "$out/gang_cccb/gantt_buddy_gang_drain.png" "$fig/"
  cp "$out/alloc_torus/slowdown_cdf.png" "$fig/slowdown_cdf_torus.png"
  cp "$out/alloc_torus/interference.png" "$fig/interference_torus.png"
  cp "$out/alloc_cccb/utilisation.png" "$fig/utilisation_cccb.png"
fi
