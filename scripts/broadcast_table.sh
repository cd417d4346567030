#!/usr/bin/env bash
# Broadcast on the papers' 1,024-PE networks (de Bruijn paper §6: "broadcast time 2 log2 N, the
# hypercube's log2 N"): `rica run NET --app broadcast:rule=R` on the cycle engine, PE 0 the
# source, flooding and the BFS tree. Two timings: unit links with one-word packets (the
# zero-contention model: depth = the source's BFS eccentricity), and the mdce-1024 set-up (link
# time = in+out degree, 3 +- 1-word packets, 32-word buffers, round-robin arbitration). The tree's
# one-port steps (a PE sends to one child per step) is the paper's model of broadcast time. Prints a markdown table;
# docs/apps.md and docs/reproduction.md quote it. Deterministic (cycle engine, seed 1).
# Usage: scripts/broadcast_table.sh [path/to/rica] [output dir]
set -euo pipefail
RICA=${1:-build/rica}
OUT=${2:-out/broadcast}
mkdir -p "$OUT"
NETS=("(CB)^2=cb2:n=4" "CCCB=cccb:n=4" "CB=cbanyan:n=7,S=8" "CCC=ccc:n=7,S=8" "2MD=mesh:32x32"
      "2DT=torus:32x32" "3DT=torus:8x8x16" "FT=fattree:10" "MIN=omega:10" "HC=hypercube:10"
      "UB=ubruijn:10" "B=debruijn:10" "SE=shuffle:10")
i=0
for net in "${NETS[@]}"; do
  spec=${net#*=}
  for rule in flood tree; do
    "$RICA" run "$spec" --app "broadcast:rule=$rule" --engine cycle --threads 1 --link-cycles 1 --packet-words 1:0 \
      --quiet --json "$OUT/$i-$rule-unit.json"
    "$RICA" run "$spec" --app "broadcast:rule=$rule" --engine cycle --threads 1 --link-cycles degree \
      --packet-words 3:1 --buffer-words 32 --arbitration rr --quiet --json "$OUT/$i-$rule-mdce.json"
  done
  i=$((i + 1))
done

python3 - "$OUT" "${NETS[@]}" <<'PY'
import json, sys
out, nets = sys.argv[1], sys.argv[2:]
print("| network | topology | eccentricity (PE hops) | 2 log2 N | flood: depth | messages | duplicates | "
      "time, unit links | time, mdce-1024 | tree: depth | one-port steps | time, unit links | time, mdce-1024 |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for i, net in enumerate(nets):
    label, spec = net.split("=", 1)
    r = {(rule, t): json.load(open(f"{out}/{i}-{rule}-{t}.json"))["app"]
         for rule in ("flood", "tree") for t in ("unit", "mdce")}
    f, ft, tr, tt = r[("flood", "unit")], r[("flood", "mdce")], r[("tree", "unit")], r[("tree", "mdce")]
    assert f["first_receipts"] == f["pes"] - 1 and tr["first_receipts"] == tr["pes"] - 1
    print(f"| {label} | `{spec}` | {f['eccentricity']} | {f.get('two_log2_pes', '')} | {f['depth']} | "
          f"{f['messages']} | {f['duplicates']} | {f['time']} | {ft['time']} | {tr['depth']} | "
          f"{tr['one_port_steps']} | {tr['time']} | "
          f"{tt['time']} |")
PY
