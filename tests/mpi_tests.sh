#!/usr/bin/env bash
# The machine over MPI ranks (docs/distributed.md). Usage: mpi_tests.sh <rica> <group>
#   identical  the cycle engine's --trace, per-PE / per-link CSVs and JSON figures byte-identical for one
#              process and for 2 and 4 ranks (and 3 once; 1 or 2 threads per rank), 5 topologies x 3 patterns
#              including hot spot at saturation
#   misc       header and JSON of a run over ranks, --rank-split partition, a deadlock across ranks
#              (exit 3 with its waiting cycle), refusals (exit 2), a rank that aborts (non-zero, no hang)
# Exits 77 (ctest: skipped) when rica was built without MPI or mpirun is absent.
set -u
RICA=$1
GROUP=${2:-identical}
command -v mpirun >/dev/null || { echo "mpi_tests: mpirun not found: skipped"; exit 77; }
"$RICA" --help >/dev/null
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
# Root in CI, 2 cores: the flags OpenMPI needs; idle ranks yield the core; every run bounded.
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi() {  # mpi NP args...: rica over NP ranks
  local np=$1
  shift
  timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$np" "$RICA" "$@"
}
# A build without MPI runs each rank as a process of its own: detect it and skip.
if ! mpi 2 run torus:4x4 --engine cycle --cycles 20 --threads 1 2>/dev/null | grep -q '^ranks  '; then
  echo "mpi_tests: this rica was built without MPI (RICA_WITH_MPI): skipped"
  exit 77
fi

# The JSON's figures: everything but wall-clock figures, provenance and the per-run fields that
# name threads, ranks or output paths.
figures() {
  python3 - "$1" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("wall_s", "packets_per_s", "packet_hops_per_s", "peak_rss_kb", "peak_rss_mb", "bytes_per_pe",
          "provenance", "start_time", "command_line", "threads", "distributed", "outputs", "config", "rica_version",
          "hostname", "host"):
    j.pop(k, None)
for k in list(j):
    if "wall" in k or "per_s" in k or "rss" in k or k.endswith("_ns_per_hop"):
        j.pop(k)
print(json.dumps(j, sort_keys=True, indent=1))
EOF
}

same() {  # same LABEL NP THREADS args...: rica over NP ranks gives the one-process outputs
  local label=$1 np=$2 th=$3
  shift 3
  local d="$TMP/$label.$np.$th"
  mkdir -p "$d"
  if ! mpi "$np" run "$@" --engine cycle --threads "$th" --quiet --trace "$d/trace.csv" --json "$d/run.json" \
      --csv "$d/pe.csv" >"$d/out" 2>"$d/err"; then
    echo "FAIL [$label: $np ranks x $th threads: exit status $?]: $(head -3 "$d/err")"
    fail=1
    return
  fi
  for f in trace.csv pe.csv pe.links.csv; do
    cmp -s "$TMP/$label.ref/$f" "$d/$f" || { echo "FAIL [$label: $f differs, 1 process vs $np ranks x $th threads]"; fail=1; }
  done
  figures "$d/run.json" >"$d/figures"
  cmp -s "$TMP/$label.ref/figures" "$d/figures" ||
    { echo "FAIL [$label: JSON figures differ, 1 process vs $np ranks x $th threads]"; diff "$TMP/$label.ref/figures" "$d/figures" | head -6; fail=1; }
}

reference() {  # reference LABEL args...: the one-process run (no mpirun)
  local label=$1
  shift
  local d="$TMP/$label.ref"
  mkdir -p "$d"
  "$RICA" run "$@" --engine cycle --threads 1 --quiet --trace "$d/trace.csv" --json "$d/run.json" --csv "$d/pe.csv" \
    >/dev/null 2>"$d/err" || { echo "FAIL [$label: the one-process run: $(head -2 "$d/err")]"; fail=1; }
  [ "$(wc -l <"$d/trace.csv")" -gt 10 ] || { echo "FAIL [$label: the reference trace is (nearly) empty]"; fail=1; }
  figures "$d/run.json" >"$d/figures"
}

case "$GROUP" in
identical)
  # 5 families x 3 patterns; hot spot at saturation (rate 1, every PE always offering).
  n=0
  for topo in torus:6x6 cccb:n=2 cbanyan:n=3,S=4 fattree:5 'product:torus:6*mesh:3x2'; do
    for traffic in "uniform --rate 0.3" "hotspot --rate 1" "transpose --rate 0.5"; do
      n=$((n + 1))
      label="t$n"
      # shellcheck disable=SC2086
      reference "$label" "$topo" --traffic $traffic --cycles 150 --seed 7
      # shellcheck disable=SC2086
      same "$label" 2 1 "$topo" --traffic $traffic --cycles 150 --seed 7
      # shellcheck disable=SC2086
      same "$label" 4 $((n % 2 + 1)) "$topo" --traffic $traffic --cycles 150 --seed 7
    done
  done
  # 3 ranks (uneven blocks), 2 threads per rank; and a split by partition.
  same t1 3 2 torus:6x6 --traffic uniform --rate 0.3 --cycles 150 --seed 7
  same t4 2 2 cccb:n=2 --traffic uniform --rate 0.3 --cycles 150 --seed 7 --rank-split partition
  ;;
misc)
  out=$(mpi 2 run torus:8x8 --engine cycle --traffic hotspot --rate 1 --cycles 200 --threads 1 --json "$TMP/d.json" 2>"$TMP/err")
  echo "$out" | grep -q '^ranks         2 ranks x 1 thread (blocks); links cut 16 of 256 (6.2%)' ||
    { echo "FAIL [header: ranks line]: $(echo "$out" | grep '^ranks')"; fail=1; }
  [ "$(echo "$out" | grep -c '^topology')" = 1 ] || { echo "FAIL [output written once, by rank 0]"; fail=1; }
  python3 -c "
import json, sys
d = json.load(open('$TMP/d.json'))['distributed']
assert d['ranks'] == 2 and d['threads_per_rank'] == 1 and d['cut_links'] == 16 and d['links'] == 256, d
assert 0 < d['cross_rank_hops'] < d['hops'], d
" || { echo "FAIL [JSON distributed block]"; fail=1; }
  # Cut links of a partition split: a torus cut into 4 quadrants cuts 4 x 2 x 8 = 64 of 256 links
  # (blocks of rows: 3 x 2 x 8 = 48); both counted independently here.
  out=$(mpi 4 run torus:8x8 --engine cycle --rate 0.1 --cycles 50 --threads 1 --rank-split partition 2>"$TMP/err")
  echo "$out" | grep -q 'links cut 64 of 256' || { echo "FAIL [partition split: cut links]: $(echo "$out" | grep '^ranks') $(cat "$TMP/err")"; fail=1; }
  out=$(mpi 4 run torus:8x8 --engine cycle --rate 0.1 --cycles 50 --threads 1 2>"$TMP/err")
  echo "$out" | grep -q 'links cut 48 of 256' || { echo "FAIL [block split: cut links]: $(echo "$out" | grep '^ranks')"; fail=1; }
  # A deadlock across ranks (no buffer classes on a torus at saturation): exit 3 with the waiting
  # cycle, as in one process.
  "$RICA" run torus:8x1 --engine cycle --no-classes --rate 1 --cycles 300 --quiet --threads 1 2>"$TMP/e1" >/dev/null
  s1=$?
  mpi 4 run torus:8x1 --engine cycle --no-classes --rate 1 --cycles 300 --quiet --threads 1 2>"$TMP/e4" >/dev/null
  s4=$?
  [ "$s1" = 3 ] && [ "$s4" = 3 ] || { echo "FAIL [deadlock across ranks: exit $s4 (one process: $s1), want 3]"; fail=1; }
  grep -q "waiting cycle:" "$TMP/e4" || { echo "FAIL [deadlock across ranks: no waiting cycle]: $(cat "$TMP/e4")"; fail=1; }
  cmp -s "$TMP/e1" "$TMP/e4" || { echo "FAIL [deadlock report differs, 1 process vs 4 ranks]"; diff "$TMP/e1" "$TMP/e4" | head; fail=1; }
  # Refusals: one line, exit 2.
  mpi 2 os torus:4x4 --parts 2 --job uniform --job uniform --out "$TMP/os" >/dev/null 2>"$TMP/err"
  s=$?
  [ "$s" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "rica os runs in one process only" "$TMP/err" ||
    { echo "FAIL [rica os over 2 ranks: exit $s, want 2]: $(cat "$TMP/err")"; fail=1; }
  mpi 2 run torus:4x4 --engine cycle --rank-split nosuch --quiet >/dev/null 2>"$TMP/err"
  s=$?
  [ "$s" = 2 ] && grep -q "unknown split 'nosuch'" "$TMP/err" || { echo "FAIL [--rank-split nosuch: exit $s]: $(cat "$TMP/err")"; fail=1; }
  # A rank that dies: the run fails with a clear message, non-zero, no hang (timeout 120 s above).
  RICA_TEST_ABORT_RANK=1 RICA_TEST_ABORT_CYCLE=20 mpi 2 run torus:8x8 --engine cycle --rate 0.5 --cycles 2000 --quiet \
    --threads 1 >/dev/null 2>"$TMP/err"
  s=$?
  [ "$s" != 0 ] && [ "$s" != 124 ] || { echo "FAIL [a rank aborting: exit $s]"; fail=1; }
  grep -q "rank 1: aborting at cycle 20" "$TMP/err" || { echo "FAIL [a rank aborting: no message]: $(head -5 "$TMP/err")"; fail=1; }
  ;;
*)
  echo "mpi_tests: unknown group '$GROUP'"
  exit 2
  ;;
esac
[ "$fail" = 0 ] && echo "mpi_tests $GROUP: ok"
exit "$fail"
