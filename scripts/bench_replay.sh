#!/usr/bin/env bash
# rica record and rica replay speed (issue 41, docs/replay.md).
#   scripts/bench_replay.sh [build-dir] record   the recorder's slowdown of examples/mpi/halo_stencil (16 ranks,
#                                                oversubscribed): wall time of mpirun with and without
#                                                librica_record.so preloaded, ABBA order, REPS rounds (default 4);
#                                                prints the ratio of medians (target: at most 1.5)
#   scripts/bench_replay.sh [build-dir] rate     the replay's packet-hop rate against synthetic uniform traffic on
#                                                the same network and engine (cycle, 1 thread), ABBA: the stencil
#                                                recorded on 64 ranks replayed on torus:8x8 (compute dropped:
#                                                --compute-scale 0, so the network is never idle), uniform traffic at
#                                                rates 0.05 and 0.2; prints M packet-hops/s of each and the ratios
#                                                (target: the replay at least half of synthetic)
# Files in $OUT (default /tmp/rica-replay-bench). The host may be shared: the figures are ratios within one run.
set -euo pipefail
B=${1:-build}
MODE=${2:-rate}
OUT=${OUT:-/tmp/rica-replay-bench}
REPS=${REPS:-4}
mkdir -p "$OUT"
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --quiet)
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
now() { date +%s.%N; }

if [ "$MODE" = record ]; then
  N=${N:-16}; CELLS=${CELLS:-128}; ITERS=${ITERS:-200}
  plain() { local t0; t0=$(now); "${MPIRUN[@]}" -np "$N" "$B/examples/mpi/halo_stencil" "$CELLS" "$ITERS" >/dev/null; echo "$(now) - $t0" | bc; }
  recorded() {
    rm -rf "$OUT/rec"
    local t0; t0=$(now)
    "$B/rica" record -o "$OUT/rec" -- "${MPIRUN[@]}" -np "$N" "$B/examples/mpi/halo_stencil" "$CELLS" "$ITERS" >/dev/null 2>&1
    echo "$(now) - $t0" | bc
  }
  : >"$OUT/plain.txt"; : >"$OUT/recorded.txt"
  for ((i = 0; i < REPS; i++)); do  # ABBA
    plain >>"$OUT/plain.txt"; recorded >>"$OUT/recorded.txt"; recorded >>"$OUT/recorded.txt"; plain >>"$OUT/plain.txt"
  done
  p=$(median <"$OUT/plain.txt"); r=$(median <"$OUT/recorded.txt")
  echo "halo_stencil $N ranks, ${CELLS}x${CELLS} cells, $ITERS iterations: plain median ${p} s, recorded median ${r} s," \
       "slowdown $(echo "scale=3; $r / $p" | bc)x over $((2 * REPS)) runs each (ABBA); archive $(du -sh "$OUT/rec" | cut -f1)"
  exit 0
fi

[ "$MODE" = rate ] || { echo "usage: $0 [build-dir] record|rate" >&2; exit 2; }
N=${N:-64}; TOPO=${TOPO:-torus:8x8}
if [ ! -f "$OUT/stencil64/traces.otf2" ]; then
  rm -rf "$OUT/stencil64"
  "$B/rica" record -o "$OUT/stencil64" -- "${MPIRUN[@]}" -np "$N" "$B/examples/mpi/halo_stencil" 64 20 >/dev/null 2>&1
fi
rate_of() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['packet_hops_per_s']/1e6)" "$1"; }
replay() { "$B/rica" replay "$OUT/stencil64" "$TOPO" --engine cycle --threads 1 --compute-scale 0 --quiet --json "$OUT/replay.json" "$@"; rate_of "$OUT/replay.json"; }
uniform() { "$B/rica" run "$TOPO" --engine cycle --threads 1 --traffic uniform --rate "$1" --cycles 20000 --quiet --json "$OUT/uniform.json"; rate_of "$OUT/uniform.json"; }
: >"$OUT/replay.txt"; : >"$OUT/u05.txt"; : >"$OUT/u20.txt"
for ((i = 0; i < REPS; i++)); do  # ABBA
  replay >>"$OUT/replay.txt"; uniform 0.05 >>"$OUT/u05.txt"; uniform 0.2 >>"$OUT/u20.txt"
  uniform 0.2 >>"$OUT/u20.txt"; uniform 0.05 >>"$OUT/u05.txt"; replay >>"$OUT/replay.txt"
done
r=$(median <"$OUT/replay.txt"); a=$(median <"$OUT/u05.txt"); b=$(median <"$OUT/u20.txt")
python3 - "$OUT/replay.json" <<PY
import json, sys
j = json.load(open(sys.argv[1]))
r = j["replay"]
print(f"replay of halo_stencil ({r['ranks']} ranks, {r['p2p_messages']} messages, {r['packets']} packets) on $TOPO: "
      f"{j['hops_mean']:.2f} hops/packet, makespan {r['makespan']} cycles")
PY
echo "M packet-hops/s (median of $((2 * REPS)), cycle engine, 1 thread): replay $r, uniform 0.05 $a, uniform 0.2 $b;" \
     "replay/uniform: $(echo "scale=2; $r / $a" | bc) and $(echo "scale=2; $r / $b" | bc)"
