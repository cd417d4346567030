#!/usr/bin/env bash
# Mesh emulation on a wrapping and on a non-wrapping logical mesh (issue 16): the closed loop
# (pacing rate 1, the "mesh emulation" column of docs/reproduction.md) of the set-ups of
# `rica experiment mdce-1024` and `rica experiment rwc1`, every network, both ways, on the cycle
# engine (round-robin arbitration, as the committed experiments). Prints a markdown table of
# accepted throughput (packets/PE/cycle) with each ordering; docs/reproduction.md quotes it.
# Deterministic (seed 1): re-running gives the same table.
# Usage: scripts/mesh_wrap_table.sh [path/to/rica] [output dir]   (30 runs of 10,000 cycles)
set -euo pipefail
RICA=${1:-build/rica}
OUT=${2:-out/mesh-wrap}
mkdir -p "$OUT"

# label=spec, as in apps/experiments/experiment.cpp (setups()).
MDCE=("(CB)^2=cb2:n=4" "CCCB=cccb:n=4" "CB=cbanyan:n=7,S=8" "CCC=ccc:n=7,S=8" "2MD=mesh:32x32"
      "2DT=torus:32x32" "3DT=torus:8x8x16" "FT=fattree:10" "MIN=omega:10")
RWC=("CB=cbanyan:n=7,S=8" "(CB)^2=cb2:n=4" "CCCB=cccb:n=4" "MIN=omega:10" "2MD=mesh:32x32" "2DT=torus:32x32")

run() {  # setup wrap link-cycles buffer-words networks...
  local setup=$1 wrap=$2 link=$3 buf=$4
  shift 4
  local args=()
  for n in "$@"; do args+=("${n#*=}"); done
  "$RICA" sweep "${args[@]}" --traffic "mesh:wrap=$wrap" --rates 1 --cycles 10000 --warmup 0 \
    --link-cycles "$link" --buffer-words "$buf" --packet-words 3:1 --arbitration rr --threads 1 --jobs 1 \
    --out "$OUT/$setup-wrap$wrap" --no-plot --quiet
}
run mdce-1024 1 degree 32 "${MDCE[@]}"
run mdce-1024 0 degree 32 "${MDCE[@]}"
run rwc1 1 words 16 "${RWC[@]}"
run rwc1 0 words 16 "${RWC[@]}"

python3 - "$OUT" "${#MDCE[@]}" "${MDCE[@]}" "${RWC[@]}" <<'PY'
import csv, sys
out, k = sys.argv[1], int(sys.argv[2])
nets = {"mdce-1024": sys.argv[3:3 + k], "rwc1": sys.argv[3 + k:]}
for setup, labels in nets.items():
    pairs = [tuple(l.split("=", 1)) for l in labels]
    acc = {}
    for wrap in ("1", "0"):
        with open(f"{out}/{setup}-wrap{wrap}/sweep_mean.csv") as f:
            rows = list(csv.DictReader(f))  # one row per topology, in the order given
        assert len(rows) == len(pairs)
        for (label, _), row in zip(pairs, rows):
            acc[(label, wrap)] = float(row["accepted_mean"])
    rank = {w: sorted((lab for lab, _ in pairs), key=lambda lab: -acc[(lab, w)]) for w in ("1", "0")}
    print(f"\n{setup}: mesh emulation, closed loop (accepted packets/PE/cycle)\n")
    print("| network | wrapping | rank | non-wrapping | rank | non-wrapping / wrapping |")
    print("|---|---|---|---|---|---|")
    for label, _ in pairs:
        a, b = acc[(label, "1")], acc[(label, "0")]
        print(f"| {label} | {a:.4f} | {rank['1'].index(label) + 1} | {b:.4f} | {rank['0'].index(label) + 1} | {b / a:.2f} |")
    print(f"\nwrapping order:     {' > '.join(rank['1'])}")
    print(f"non-wrapping order: {' > '.join(rank['0'])}")
PY
