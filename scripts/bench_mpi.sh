#!/usr/bin/env bash
# Benchmark of the machine over MPI ranks (docs/distributed.md, issue 12). Run it on an otherwise
# idle machine: it measures wall-clock rates.
#   1. hop rate: 1 rank x 2 threads against 2 ranks x 1 thread, cycle and async engines, 1K and 64K PEs
#      (the async engine runs in one process only for now: its rows are 1 process x 1 and x 2 threads);
#   2. the node split: blocks against partition (cut links, share of hops across ranks, rate);
#   3. memory per rank: a torus over 1, 2 and 4 ranks (each rank's peak RSS, from the run's JSON);
#   and, in the rate table, the share of each rank's run time spent in MPI (the cycle loop's
#   exchange: blocked on the other ranks or moving the batches), max and mean over the ranks.
# Usage: scripts/bench_mpi.sh [build-dir]   (Markdown tables on stdout; JSON per run in $OUT)
# Environment: SIZE_MEM (default torus:2048x2048, 4M PEs), CYCLES (default 200), NP_MAX (default 4).
set -euo pipefail
B=${1:-build}
OUT=${OUT:-/tmp/rica-bench-mpi}
SIZE_MEM=${SIZE_MEM:-torus:2048x2048}
CYCLES=${CYCLES:-200}
NP_MAX=${NP_MAX:-4}
mkdir -p "$OUT"
export OMPI_MCA_mpi_yield_when_idle=1
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none)

# run NAME NP THREADS ENGINE SPEC [more options]: one run, its JSON in $OUT/NAME.json
run() {
  local name=$1 np=$2 th=$3 engine=$4 spec=$5
  shift 5
  local f="$OUT/$name.json" win=()
  [ "$engine" = cycle ] && win=(--cycles "$CYCLES")
  if [ "$np" = 0 ]; then  # one process, no mpirun
    "$B/rica" run "$spec" --engine "$engine" "${win[@]}" --threads "$th" --quiet --json "$f" "$@" >/dev/null
  else
    "${MPIRUN[@]}" -np "$np" "$B/rica" run "$spec" --engine "$engine" "${win[@]}" --threads "$th" --quiet --json "$f" "$@" >/dev/null
  fi
  echo "$f"
}
row() {  # row JSON LABEL
  python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); d = j.get("distributed", {})
rss = d.get("peak_rss_kb_per_rank", [j.get("peak_rss_kb", 0)])
w = d.get("mpi_wait_share")
wait = f"{100 * w['max']:.0f}% / {100 * w['mean']:.0f}%" if w else "-"
print(f"| {sys.argv[2]} | {j['topology']} | {j['pes']} | {j['model']['engine']} | {d.get('ranks', 1)} | {j['threads']} "
      f"| {j['packet_hops_per_s']/1e6:.2f} | {j['wall_s']:.2f} | {d.get('split', '-')} "
      f"| {d.get('cut_links', 0)} / {d.get('links', '-')} | {100 * d.get('cross_rank_share', 0):.1f}% "
      f"| {wait} | {max(rss) / 1024:.0f} |")
PY
}
echo "| run | topology | PEs | engine | ranks | threads/rank | M packet-hops/s | wall s | split | cut links | hops across ranks | time in MPI max / mean | max peak RSS per rank MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for spec in torus:32x32 torus:256x256; do
  tag=$(echo "$spec" | tr ':x' '__')
  row "$(run "$tag-cycle-1x2" 0 2 cycle "$spec" --traffic uniform --rate 0.3)" "1 process x 2 threads"
  row "$(run "$tag-cycle-2x1" 2 1 cycle "$spec" --traffic uniform --rate 0.3)" "2 ranks x 1 thread, blocks"
  row "$(run "$tag-cycle-2x1p" 2 1 cycle "$spec" --traffic uniform --rate 0.3 --rank-split partition)" "2 ranks x 1 thread, partition"
  row "$(run "$tag-cycle-4x1" 4 1 cycle "$spec" --traffic uniform --rate 0.3)" "4 ranks x 1 thread, blocks"
  row "$(run "$tag-cycle-4x1p" 4 1 cycle "$spec" --traffic uniform --rate 0.3 --rank-split partition)" "4 ranks x 1 thread, partition"
  row "$(run "$tag-async-1x1" 0 1 async "$spec" --traffic uniform --rate 1 --packets 50)" "async, 1 process x 1 thread"
  row "$(run "$tag-async-1x2" 0 2 async "$spec" --traffic uniform --rate 1 --packets 50)" "async, 1 process x 2 threads"
done
echo
# Peak RSS does not depend on the load: a light one (a few thousand packets, links of one cycle so
# that the drain is short), 200 cycles.
echo "Memory per rank, $SIZE_MEM (cycle engine, 200 cycles at rate 0.00001, --link-cycles 1):"
echo
echo "| ranks | peak RSS per rank MB (each) | max MB | sum over ranks MB |"
echo "|---|---|---|---|"
for np in 1 2 4; do
  [ "$np" -le "$NP_MAX" ] || continue
  f=$(CYCLES=200 run "mem-$np" "$np" 1 cycle "$SIZE_MEM" --traffic uniform --rate 0.00001 --link-cycles 1)
  python3 - "$f" "$np" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); d = j.get("distributed", {})
rss = d.get("peak_rss_kb_per_rank", [j["peak_rss_kb"]])
print(f"| {sys.argv[2]} | {', '.join(f'{r/1024:.0f}' for r in rss)} | {max(rss)/1024:.0f} | {sum(rss)/1024:.0f} |")
PY
done
