#!/bin/bash
# The OS-policy workbench at 1,024 PEs (issue 31's speed target: under 5 minutes on 2 cores): a
# 200-job Poisson stream on cccb:n=4 under gang scheduling with drain switches, every job uniform
# traffic packet by packet. Prints the wall time and packet-hops per second (wall-clock figures
# need a quiet host); results and plots in OUT_DIR.
# Usage: scripts/bench_os_stream.sh [OUT_DIR]   (default out/bench-os-stream/)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-out/bench-os-stream}"
rica="$here/build/rica"
[ -x "$rica" ] || bash "$here/scripts/build.sh"
jobs="poisson:jobs=200,rate=0.25,size=16:256,length=60,seed=1"
start=$(date +%s.%N)
"$rica" os-stream cccb:n=4 --jobs "$jobs" --alloc buddy --sched gang --policy drain --rows 4 --slice 2000 \
  --cycles-per-second 50 --rate 0.02 --threads 2 --out "$out" --quiet
end=$(date +%s.%N)
python3 - "$out/stream.json" "$start" "$end" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
r = j["runs"][0]
wall = float(sys.argv[3]) - float(sys.argv[2])
print(f"cccb:n=4, {j['stream']['jobs']} jobs ({j['stream']['source']}), buddy + gang + drain: "
      f"{wall:.1f} s wall, makespan {r['makespan']} cycles, {r['packet_hops']} packet-hops "
      f"({r['packet_hops'] / wall:.3g} packet-hops/s), {r['switches']['count']} switches, "
      f"utilisation {r['utilisation_mean']:.3f}, lost {r['lost']}, duplicates {r['duplicates']}, ok {r['ok']}")
PY
