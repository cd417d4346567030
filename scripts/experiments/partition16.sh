#!/bin/bash
# RWC-1 §3.2: a 16-PE partition of the 1,024-PE c-Banyan (two rings of 8 joined by the cross
# links of one address bit) is bottlenecked by the links between its two groups; (CB)^2 and CCCB
# were designed to fix it. Every 16-PE partition of `rica partition NET --parts 64` (all closed)
# runs uniform traffic inside itself at once (a traffic matrix, uniform inside each partition);
# `rica sweep` under the RWC-1 set-up (one word per cycle per link, 16-word buffers, 3 +- 1-word
# packets, round robin, 10,000 cycles) finds the saturation throughput = the largest accepted
# throughput over the rate grid, as `rica experiment` does. For c-Banyan one run past the knee
# records the packets on every link of partition 0 (cbanyan_n_7_S_8.links.csv).
# Usage: scripts/experiments/partition16.sh [OUT_DIR]   (default docs/experiments/partition16)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
rica=${RICA:-$root/build/rica}
out=${1:-docs/experiments/partition16}   # relative to the repository root (the CSVs name the matrices)
[ -x "$rica" ] || { echo "partition16.sh: no rica at $rica (run scripts/build.sh or set RICA)" >&2; exit 2; }
cd "$root"
mkdir -p "$out/inputs"
echo "*" > "$out/inputs/.gitignore"   # the partition plans and matrices are regenerated here, not committed
rates=0.02,0.03,0.04,0.045,0.05,0.055,0.06,0.065,0.07,0.08,0.09,0.1,0.12
model=(--link-cycles words --buffer-words 16 --packet-words 3:1 --arbitration rr --cycles 10000 --warmup 0)
for net in cbanyan:n=7,S=8 cb2:n=4 cccb:n=4; do
  tag=$(echo "$net" | tr ':,=' '___')
  "$rica" partition "$net" --parts 64 --json "$out/inputs/$tag.partition.json" --quiet
  python3 - "$out/inputs/$tag.partition.json" "$out/inputs/$tag.matrix.csv" <<'EOF'
import json, sys
plan = json.load(open(sys.argv[1]))
parts = plan["partitions"]
assert all(p["closed"] for p in parts), "a partition is open"
with open(sys.argv[2], "w") as f:
    f.write("src,dst,rate\n")
    for p in parts:
        pes = p["pes"]
        for s in pes:
            for d in pes:
                if s != d:
                    f.write(f"{s},{d},{1 / (len(pes) - 1):.17g}\n")
EOF
  "$rica" sweep "$net" --traffic "matrix:$out/inputs/$tag.matrix.csv" --rates "$rates" "${model[@]}" --jobs 2 --threads 1 \
    --out "$out/$tag" --json "$out/$tag.sweep.json" --no-plot --quiet
done
# Where the c-Banyan partition saturates: per-link packet counts of one run past its knee (offered
# 0.06), partition 0 = PEs 0..15 = rings 0 and 1 (port 0: the ring's parallel link, port 1: cross).
"$rica" run cbanyan:n=7,S=8 --engine cycle --traffic "matrix:$out/inputs/cbanyan_n_7_S_8.matrix.csv" --rate 0.06 \
  "${model[@]}" --threads 1 --csv "$out/inputs/cb_run.csv" --quiet > /dev/null
python3 - "$out/inputs/cb_run.links.csv" "$out/cbanyan_n_7_S_8.links.csv" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if int(r["node"]) < 16]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["node", "port", "peer", "packets"])
    w.writeheader()
    w.writerows({k: r[k] for k in w.fieldnames} for r in rows)
EOF
echo "written to $out"
