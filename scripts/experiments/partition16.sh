#!/usr/bin/env bash
# RWC-1 §3.2: 16-PE partitions of the 1,024-PE c-Banyan, (CB)^2 and CCCB. `rica experiment
# partition16` runs every 16-PE partition of `rica partition NET --parts 64` (all closed) with
# uniform traffic inside itself at once (--traffic partition:parts=64) under the RWC-1 set-up, then
# one c-Banyan run past its knee (offered 0.06) records the packets on every link of partition 0
# (PEs 0..15 = rings 0 and 1; port 0: the ring's parallel link, port 1: cross) into
# OUT/cbanyan_n_7_S_8.links.csv, which docs/reproduction.md reads.
# Usage: scripts/experiments/partition16.sh [OUT] [rica experiment options]   (default docs/experiments/partition16)
# RICA=path/to/rica overrides the binary (default build/rica; scripts/build.sh builds it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rica=${RICA:-$root/build/rica}
out=${1:-$root/docs/experiments/partition16}
[ $# -gt 0 ] && shift
[ -x "$rica" ] || { echo "partition16.sh: no rica at $rica (run scripts/build.sh or set RICA)" >&2; exit 2; }
"$rica" experiment partition16 --out "$out" "$@"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$rica" run cbanyan:n=7,S=8 --engine cycle --traffic partition:parts=64 --rate 0.06 --link-cycles words \
  --buffer-words 16 --packet-words 3:1 --arbitration rr --cycles 10000 --warmup 0 --threads 1 \
  --csv "$tmp/run.csv" --quiet > /dev/null
python3 - "$tmp/run.links.csv" "$out/cbanyan_n_7_S_8.links.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if int(r["node"]) < 16]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["node", "port", "peer", "packets"])
    w.writeheader()
    w.writerows({k: r[k] for k in w.fieldnames} for r in rows)
PY
echo "written to $out"
