#!/usr/bin/env bash
# The machine over MPI ranks (docs/distributed.md). Usage: mpi_tests.sh <rica> <group>
#   identical2, identical4  the cycle engine's --trace, per-PE / per-link CSVs and JSON figures
#              byte-identical for one process and for 2 (identical2), 4 and 3 ranks (identical4), 1 or 2
#              threads per rank, 5 topologies x 3 patterns including hot spot at saturation
#   misc       header and JSON of a run over ranks, --rank-split partition, a deadlock across ranks
#              (exit 3 with its waiting cycle), refusals (exit 2), a rank that aborts (non-zero, no hang)
#   async      the async engine over ranks: exactly-once delivery on every family at saturation (2 and
#              4 ranks, 1 or 2 threads per rank), a deadlock across ranks (exit 3 with its waiting
#              cycle), sort and stencil verified, a rank that aborts (non-zero, no hang)
#   memory     each rank allocates its own nodes only: the JSON's per-rank peak RSS (max, sum) and
#              MPI wait shares are there, and over 4 ranks a 256K-PE torus's largest rank peak is
#              well below the one-process peak
# Exits 77 (ctest: skipped) when rica was built without MPI or mpirun is absent.
set -u
RICA=$1
GROUP=${2:-misc}
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
  # Under ASan, no leak check in the ranks: OpenMPI leaves its own allocations behind, in
  # components it has unloaded by the exit (frames in no module, so no suppression can name them).
  # The one-process suites keep the leak check.
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    timeout 120 mpirun --quiet --allow-run-as-root --oversubscribe -np "$np" "$RICA" "$@"
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
for k in ("wall_s", "packets_per_s", "packet_hops_per_s", "packet_transfers_per_s", "peak_rss_kb", "peak_rss_mb", "bytes_per_pe",
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
  mpi "$np" run "$@" --engine cycle --threads "$th" --quiet --trace "$d/trace.csv" --json "$d/run.json" \
    --csv "$d/pe.csv" >"$d/out" 2>"$d/err"
  local s=$?
  if [ "$s" != 0 ]; then
    echo "FAIL [$label: $np ranks x $th threads: exit status $s]: $(head -3 "$d/err")"
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
identical2 | identical4)
  # 5 families x 3 patterns; hot spot at saturation (rate 1, every PE always offering). One group
  # per rank count (2; 4 and 3), so that ctest -j runs them side by side.
  n=0
  for topo in torus:6x6 cccb:n=2 cbanyan:n=3,S=4 fattree:5 'product:torus:6*mesh:3x2'; do
    for traffic in "uniform --rate 0.3" "hotspot --rate 1" "localized --rate 0.5"; do
      n=$((n + 1))
      label="t$n"
      # shellcheck disable=SC2086
      reference "$label" "$topo" --traffic $traffic --cycles 150 --seed 7
      if [ "$GROUP" = identical2 ]; then
        # shellcheck disable=SC2086
        same "$label" 2 $((n % 2 + 1)) "$topo" --traffic $traffic --cycles 150 --seed 7
      else
        # shellcheck disable=SC2086
        same "$label" 4 $(((n + 1) % 2 + 1)) "$topo" --traffic $traffic --cycles 150 --seed 7
      fi
    done
  done
  if [ "$GROUP" = identical4 ]; then  # 3 ranks (uneven blocks), 2 threads per rank
    same t1 3 2 torus:6x6 --traffic uniform --rate 0.3 --cycles 150 --seed 7
  else  # a split by partition
    same t4 2 2 cccb:n=2 --traffic uniform --rate 0.3 --cycles 150 --seed 7 --rank-split partition
  fi
  # Issue 28: bursty sources with long off periods: the ranks agree on jumping over idle stretches
  # (the reference jumps over most of its 150,000 cycles), with the one-process results.
  reference idle torus:4x4 --burst 5:20000 --rate 0.5 --cycles 150000 --seed 3
  python3 -c "import json, sys; sys.exit(json.load(open('$TMP/idle.ref/run.json'))['cycles_skipped'] < 100000)" ||
    { echo "FAIL [idle: the one-process run jumped over too little]"; fail=1; }
  if [ "$GROUP" = identical2 ]; then same idle 2 1 torus:4x4 --burst 5:20000 --rate 0.5 --cycles 150000 --seed 3
  else same idle 3 1 torus:4x4 --burst 5:20000 --rate 0.5 --cycles 150000 --seed 3; fi
  ;;
misc)
  out=$(mpi 2 run torus:8x8 --engine cycle --traffic hotspot --rate 1 --cycles 200 --threads 1 --json "$TMP/d.json" 2>"$TMP/err")
  # torus:8x8 in 2 blocks of 4 rows: 2 boundaries x 8 columns x 2 directions = 32 of 256 links cut.
  echo "$out" | grep -q '^ranks         2 ranks x 1 thread (blocks); links cut 32 of 256 (12.5%)' ||
    { echo "FAIL [header: ranks line]: $(echo "$out" | grep '^ranks')"; fail=1; }
  [ "$(echo "$out" | grep -c '^topology')" = 1 ] || { echo "FAIL [output written once, by rank 0]"; fail=1; }
  python3 -c "
import json, sys
d = json.load(open('$TMP/d.json'))['distributed']
assert d['ranks'] == 2 and d['threads_per_rank'] == 1 and d['cut_links'] == 32 and d['links'] == 256, d
assert 0 < d['cross_rank_hops'] < d['hops'] and len(d['peak_rss_kb_per_rank']) == 2, d
" || { echo "FAIL [JSON distributed block]"; fail=1; }
  # --rank-split partition: the cut links the run reports equal those counted here from
  # `rica partition`'s PE sets (torus:16x4 over 4 ranks; blocks of rows: 4 x 16 x 2 = 128).
  out=$(mpi 4 run torus:16x4 --engine cycle --rate 0.1 --cycles 50 --threads 1 --rank-split partition 2>"$TMP/err")
  "$RICA" partition torus:16x4 --parts 4 --json "$TMP/p.json" --quiet >/dev/null 2>&1
  want=$(python3 -c "
import json
owner = {}
for k, p in enumerate(json.load(open('$TMP/p.json'))['partitions']):
    for v in p['pes']: owner[v] = k
cut = 0
for y in range(4):
    for x in range(16):
        for (a, b) in (((x + 1) % 16, y), ((x - 1) % 16, y), (x, (y + 1) % 4), (x, (y - 1) % 4)):
            cut += owner[x + 16 * y] != owner[a + 16 * b]
print(cut)")
  echo "$out" | grep -q "(partition:.*links cut $want of 256" ||
    { echo "FAIL [partition split: cut links, want $want]: $(echo "$out" | grep '^ranks') $(cat "$TMP/err")"; fail=1; }
  out=$(mpi 4 run torus:16x4 --engine cycle --rate 0.1 --cycles 50 --threads 1 2>"$TMP/err")
  echo "$out" | grep -q 'links cut 128 of 256' || { echo "FAIL [block split: cut links]: $(echo "$out" | grep '^ranks')"; fail=1; }
  # A deadlock across ranks (a ring without buffer classes, tornado at saturation): exit 3 with
  # the waiting cycle, the report identical to one process's.
  dl=(run torus:16 --engine cycle --traffic tornado --no-classes --buffer-words 3 --packet-words 3:0 --rate 1 --cycles 200
      --quiet --threads 1)
  "$RICA" "${dl[@]}" 2>"$TMP/e1" >/dev/null
  s1=$?
  mpi 4 "${dl[@]}" 2>"$TMP/e4" >/dev/null
  s4=$?
  [ "$s1" = 3 ] && [ "$s4" = 3 ] || { echo "FAIL [deadlock across ranks: exit $s4 (one process: $s1), want 3]"; fail=1; }
  grep -q "waiting cycle: (0) (in-port 0, class 0) -> (1)" "$TMP/e4" || { echo "FAIL [deadlock across ranks: no waiting cycle]: $(cat "$TMP/e4")"; fail=1; }
  cmp -s "$TMP/e1" "$TMP/e4" || { echo "FAIL [deadlock report differs, 1 process vs 4 ranks]"; diff "$TMP/e1" "$TMP/e4" | head; fail=1; }
  # Refusals: one line, exit 2.
  mpi 2 os torus:4x4 --parts 2 --job uniform --job uniform --out "$TMP/os" >/dev/null 2>"$TMP/err"
  s=$?
  [ "$s" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "rica os runs in one process only" "$TMP/err" ||
    { echo "FAIL [rica os over 2 ranks: exit $s, want 2]: $(cat "$TMP/err")"; fail=1; }
  mpi 2 run torus:4x4 --engine cycle --rank-split nosuch --quiet >/dev/null 2>"$TMP/err"
  s=$?
  [ "$s" = 2 ] && grep -q "unknown split 'nosuch'" "$TMP/err" || { echo "FAIL [--rank-split nosuch: exit $s]: $(cat "$TMP/err")"; fail=1; }
  # Applications across ranks, verified as in one process (the same figures and field sum).
  for app in "sort -t torus:4x4 --keys 301 --algorithm bitonic" "sort -t cccb:n=2 --keys 200 --algorithm sample" \
             "stencil -t torus:4x4 --grid 12x12"; do
    # shellcheck disable=SC2086
    "$RICA" app $app --engine cycle --threads 1 --quiet --json "$TMP/a1.json" >/dev/null 2>"$TMP/err" ||
      { echo "FAIL [app $app: one process]: $(cat "$TMP/err")"; fail=1; }
    # shellcheck disable=SC2086
    mpi 3 app $app --engine cycle --threads 1 --quiet --json "$TMP/a3.json" >/dev/null 2>"$TMP/err" ||
      { echo "FAIL [app $app: 3 ranks]: $(cat "$TMP/err")"; fail=1; }
    python3 - "$TMP/a1.json" "$TMP/a3.json" <<'PYEOF' || { echo "FAIL [app $app: 3 ranks differ from one process]"; fail=1; }
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["verified"] and b["verified"], (a["verified"], b["verified"])
ra, rb = a["runs"][0], b["runs"][0]
for k in ("delivered", "hops_mean", "latency_mean", "cycles_run", "app"):
    assert ra.get(k) == rb.get(k), (k, ra.get(k), rb.get(k))
PYEOF
  done
  # A sweep across ranks: the same table of figures.
  "$RICA" sweep torus:4x4 --rates 0.1,0.4 --cycles 200 --threads 1 --no-plot --out "$TMP/sw1" >/dev/null 2>&1
  mpi 2 sweep torus:4x4 --rates 0.1,0.4 --cycles 200 --threads 1 --no-plot --out "$TMP/sw2" >/dev/null 2>&1 ||
    { echo "FAIL [sweep over 2 ranks]"; fail=1; }
  python3 - "$TMP/sw1/sweep.csv" "$TMP/sw2/sweep.csv" <<'PYEOF' || { echo "FAIL [sweep: 2 ranks differ from one process]"; fail=1; }
import csv, sys
a, b = (list(csv.DictReader(open(f))) for f in sys.argv[1:])
assert len(a) == len(b) == 2
for x, y in zip(a, b):
    for k in x:
        if "wall" in k or "per_s" in k or "rss" in k or "threads" in k:
            continue
        assert x[k] == y[k], (k, x[k], y[k])
PYEOF
  # A rank that dies: the run fails with a clear message, non-zero, no hang (timeout 120 s above).
  RICA_TEST_ABORT_RANK=1 RICA_TEST_ABORT_CYCLE=20 mpi 2 run torus:8x8 --engine cycle --rate 0.5 --cycles 2000 --quiet \
    --threads 1 >/dev/null 2>"$TMP/err"
  s=$?
  [ "$s" != 0 ] && [ "$s" != 124 ] || { echo "FAIL [a rank aborting: exit $s]"; fail=1; }
  grep -q "rank 1: aborting at cycle 20" "$TMP/err" || { echo "FAIL [a rank aborting: no message]: $(head -5 "$TMP/err")"; fail=1; }
  ;;
async)
  # Exactly once across ranks, at saturation (every PE offering at every activation): each run's
  # injected count must be PEs x packets (counted here, not by rica), every one delivered once
  # (bitmap gathered onto rank 0), none left, and some hops must have crossed ranks. PEs: 6 x 6,
  # 5 x 4, 2^5 (hypercube, fat tree leaves, de Bruijn), 32 (cccb:n=2), S 2^n = 4 x 8 (cbanyan),
  # 4 x 3 x 2 (product), the file's 8.
  n=0
  for tp in torus:6x6=36 mesh:5x4=20 hypercube:5=32 fattree:5=32 cccb:n=2=32 cbanyan:n=3,S=4=32 \
            'product:torus:4*mesh:3x2=24' debruijn:5=32 "file:$(dirname "$0")/data/cube_switches.txt=8"; do
    topo=${tp%=*}
    pes=${tp##*=}
    for np in 2 4; do
      n=$((n + 1))
      th=$((n % 2 + 1))
      if [ $((n % 2)) = 0 ]; then traffic="uniform --rate 1"; else traffic="hotspot --rate 1"; fi
      # shellcheck disable=SC2086
      mpi "$np" run "$topo" --engine async --traffic $traffic --packets 40 --threads "$th" --seed "$n" --quiet \
        --json "$TMP/x$n.json" >/dev/null 2>"$TMP/err"
      s=$?
      [ "$s" = 0 ] || { echo "FAIL [async $topo, $np ranks x $th threads, $traffic: exit $s]: $(head -3 "$TMP/err")"; fail=1; continue; }
      python3 - "$TMP/x$n.json" "$pes" "$np" "$th" <<'PYEOF' || { echo "FAIL [async exactly-once: $topo, $np ranks x $th threads, $traffic]"; fail=1; }
import json, sys
j = json.load(open(sys.argv[1]))
pes, np, th = (int(x) for x in sys.argv[2:5])
want = pes * 40
assert j["injected"] == want and j["delivered"] == want, (j["injected"], j["delivered"], want)
assert j["duplicates"] == 0 and j["lost"] == 0 and j["in_network"] == 0, j
assert j["conservation_ok"] and j["verify_method"] == "bitmap", j
d = j["distributed"]
assert d["ranks"] == np and d["threads_per_rank"] == th and 0 < d["cross_rank_hops"] <= d["hops"], d
# batched per destination rank: fewer messages (packets and credits) than packets across ranks
assert 0 < d["batches"] < d["cross_rank_hops"], d
# each rank's bridge time in MPI, measured (it read 0 under the async engine before)
w = d["mpi_wait_share"]
assert len(w["per_rank"]) == np and all(0 < x <= 1 for x in w["per_rank"]), w
PYEOF
    done
  done
  # A deadlock across ranks (a ring without buffer classes, tornado at saturation): exit 3 with
  # the waiting cycle through every node of the ring (it spans all 4 ranks), never a hang.
  mpi 4 run torus:16 --engine async --traffic tornado --no-classes --buffer-words 3 --packet-words 3:0 --rate 1 \
    --quiet --threads 1 2>"$TMP/e4" >/dev/null
  s=$?
  [ "$s" = 3 ] || { echo "FAIL [async deadlock across ranks: exit $s, want 3]: $(head -3 "$TMP/e4")"; fail=1; }
  grep -q "waiting cycle: (0) (in-port 0, class 0) -> (1)" "$TMP/e4" && grep -q -- "-> (15) (in-port 0, class 0) -> (0)" "$TMP/e4" ||
    { echo "FAIL [async deadlock across ranks: no waiting cycle]: $(cat "$TMP/e4")"; fail=1; }
  # The same with classes completes (the dateline breaks the cycle).
  mpi 4 run torus:16 --engine async --traffic tornado --buffer-words 3 --packet-words 3:0 --rate 1 --quiet --threads 1 \
    >/dev/null 2>"$TMP/err" || { echo "FAIL [async tornado with classes over 4 ranks]: $(head -3 "$TMP/err")"; fail=1; }
  # Applications across ranks on the async engine, verified by the application itself.
  for app in "sort -t torus:4x4 --keys 301 --algorithm bitonic" "sort -t cccb:n=2 --keys 200 --algorithm sample" \
             "stencil -t torus:4x4 --grid 12x12"; do
    # shellcheck disable=SC2086
    mpi 3 app $app --engine async --threads 1 --quiet --json "$TMP/a3.json" >/dev/null 2>"$TMP/err" ||
      { echo "FAIL [async app $app: 3 ranks]: $(head -3 "$TMP/err")"; fail=1; continue; }
    python3 -c "
import json; j = json.load(open('$TMP/a3.json')); assert j['verified'], j['verified']" ||
      { echo "FAIL [async app $app: 3 ranks, not verified]"; fail=1; }
  done
  # A rank that dies during an async run: non-zero, a clear message, no hang.
  RICA_TEST_ABORT_RANK=1 RICA_TEST_ABORT_CYCLE=5 mpi 2 run torus:8x8 --engine async --rate 1 --packets 5000 --quiet \
    --threads 1 >/dev/null 2>"$TMP/err"
  s=$?
  [ "$s" != 0 ] && [ "$s" != 124 ] || { echo "FAIL [async, a rank aborting: exit $s]"; fail=1; }
  grep -q "rank 1: aborting at wave 5" "$TMP/err" || { echo "FAIL [async, a rank aborting: no message]: $(head -5 "$TMP/err")"; fail=1; }
  ;;
memory)
  # torus:512x512 (256K PEs): the machine's tables dominate the process (~2 KB per node against
  # ~50 MB of libraries and MPI), so one rank of 4 must peak well below one process: < 0.6x (the
  # tables alone would give ~0.25x plus the dense per-node bytes and rank 0's output tables).
  # (1,000 packets, links of one cycle: the drain takes ~500 cycles; a few seconds in all.)
  mem=(run torus:512x512 --engine cycle --traffic uniform --rate 0.001 --cycles 4 --link-cycles 1 --threads 1 --quiet)
  "$RICA" "${mem[@]}" --json "$TMP/m1.json" --csv "$TMP/m1.csv" >/dev/null 2>"$TMP/err" ||
    { echo "FAIL [memory: one process]: $(cat "$TMP/err")"; fail=1; }
  mpi 4 "${mem[@]}" --json "$TMP/m4.json" --csv "$TMP/m4.csv" >/dev/null 2>"$TMP/err" ||
    { echo "FAIL [memory: 4 ranks]: $(cat "$TMP/err")"; fail=1; }
  # The per-PE and per-link tables, gathered in several messages per rank here (64K nodes each).
  for f in csv links.csv; do
    cmp -s "$TMP/m1.$f" "$TMP/m4.$f" || { echo "FAIL [memory: m.$f differs, 1 process vs 4 ranks]"; fail=1; }
  done
  python3 - "$TMP/m1.json" "$TMP/m4.json" <<'PYEOF' || fail=1
import json, sys
one, four = (json.load(open(f)) for f in sys.argv[1:])
d = four["distributed"]
per = d["peak_rss_kb_per_rank"]
ok = len(per) == 4 and all(r > 0 for r in per) and d["peak_rss_kb_max"] == max(per) and d["peak_rss_kb_sum"] == sum(per)
w = d["mpi_wait_share"]
ok = ok and len(w["per_rank"]) == 4 and all(0 <= x <= 1 for x in w["per_rank"]) and w["max"] == max(w["per_rank"])
ok = ok and abs(w["mean"] - sum(w["per_rank"]) / 4) < 1e-9
if not ok:
    print(f"FAIL [memory: the JSON's distributed block]: {d}")
    sys.exit(1)
ratio = max(per) / one["peak_rss_kb"]
if not ratio < 0.6:
    print(f"FAIL [memory: 4 ranks' largest peak {max(per)} kB is {ratio:.2f}x the one-process peak {one['peak_rss_kb']} kB, want < 0.6x]")
    sys.exit(1)
# The same figures as one process (the machine is the same).
for k in ("delivered", "injected", "packet_hops", "cycles_run", "latency_mean"):
    if one[k] != four[k]:
        print(f"FAIL [memory: {k} differs: {one[k]} vs {four[k]}]")
        sys.exit(1)
PYEOF
  ;;
*)
  echo "mpi_tests: unknown group '$GROUP'"
  exit 2
  ;;
esac
[ "$fail" = 0 ] && echo "mpi_tests $GROUP: ok"
exit "$fail"
