#!/usr/bin/env bash
# The regression corpus: behaviour unchanged across refactors of the machine, its drivers and the
# front end. About 45 runs over every topology family, both engines, deterministic, adaptive and
# the dragonfly's valiant / ugal-l routing, a router pipeline, static and timed faults, bursts
# and traces with idle stretches, an application, a deadlock, `rica os` with drain, flush and
# drain-pe, and 2 MPI ranks:
#   - cycle engine: the JSON's figures (less wall-clock, memory, paths and provenance) and the
#     SHA-256 of the per-packet trace must equal tests/corpus/expected.json, byte for byte;
#   - async engine: exactly once (conservation by bitmap, verified), nothing lost or duplicated;
#   - 2 MPI ranks (skipped without MPI): the same figures and trace as the one-process run.
# Usage: corpus_tests.sh RICA [--update]   (--update rewrites expected.json from RICA: only for
# a change that is meant to alter results; say so in the commit).
set -u
RICA=${1:?path to rica}
UPDATE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
EXPECTED=$HERE/corpus/expected.json
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
GAP=$HERE/corpus/gap.csv
FILE=$HERE/data/irregular12.txt

# name | exit status | rica run arguments (cycle engine, 1 thread unless given)
CYCLE_RUNS="
cbanyan|0|cbanyan:n=3 --rate 0.05 --cycles 1500
cbanyan_adaptive|0|cbanyan:n=3 --rate 0.08 --cycles 1500 --routing adaptive --threads 2
ccc|0|ccc:n=3 --rate 0.03 --cycles 1500 --timing saf
comega|0|comega:n=3 --traffic hotspot --rate 0.02 --cycles 1500
dce|0|dce:n=4,delta=2 --rate 0.02 --cycles 1500
mdce_adaptive|0|mdce:B=1,C=1,P=1,n=3 --rate 0.02 --cycles 1500 --routing adaptive
cccb|0|cccb:n=2 --rate 0.1 --cycles 1500 --arbitration round-robin
cb2|0|cb2:n=3 --rate 0.02 --cycles 1500
mxx|0|mxx:16 --rate 0.01 --cycles 3000
mesh8|0|mesh8:6 --rate 0.02 --cycles 1500
torus8|0|torus8:6 --rate 0.02 --cycles 1500 --link-cycles 3
mesh_adaptive|0|mesh:6x6 --rate 0.05 --cycles 1500 --routing adaptive
torus_adaptive|0|torus:8x8 --rate 0.05 --cycles 1500 --routing adaptive --threads 2
torus_saturated|0|torus:8x8 --rate 1 --packets 20 --cycles 3000
kary|0|kary:k=4,n=3 --rate 0.03 --cycles 1500 --traffic transpose
hypercube_adaptive|0|hypercube:6 --rate 0.03 --cycles 1500 --routing adaptive --traffic bitcomp
debruijn|0|debruijn:6 --rate 0.01 --cycles 1500 --warmup 200
ubruijn|0|ubruijn:6 --rate 0.01 --cycles 1500
shuffle_adaptive|0|shuffle:6 --rate 0.01 --cycles 1500 --routing adaptive
msn|0|msn:4x4 --rate 0.02 --cycles 1500
omega|0|omega:4 --rate 0.01 --cycles 1500 --packet-words 4:2 --buffer-words 12
fattree_adaptive|0|fattree:4 --rate 0.05 --cycles 1500 --routing adaptive
product|0|product:torus:4*mesh:3x2 --rate 0.03 --cycles 1500
hier|0|hier:mesh:3x3/debruijn:3 --rate 0.01 --cycles 1500
file|0|file:$FILE --rate 0.03 --cycles 1500 --routing adaptive
dragonfly|0|dragonfly:h=2 --rate 0.1 --cycles 1500
dragonfly_relative_saturated|0|dragonfly:h=2,arrangement=relative --rate 1 --packets 20 --cycles 3000 --threads 2
hyperx|0|hyperx:4x4,T=2 --rate 0.1 --cycles 1500 --traffic bitcomp
slimfly|0|slimfly:q=5 --rate 0.1 --cycles 1500 --traffic hotspot
dragonfly_valiant|0|dragonfly:h=2 --rate 0.1 --cycles 1500 --routing valiant
dragonfly_ugal_saturated|0|dragonfly:h=2,arrangement=relative --rate 1 --packets 20 --cycles 3000 --threads 2 --routing ugal-l --traffic tornado
router_cycles|0|torus:4x4 --rate 0.05 --cycles 1500 --link-cycles 1 --router-cycles 2
faults_static|0|torus:8x8 --rate 0.03 --cycles 2000 --faults links=3
faults_adaptive|0|mesh:6x6 --rate 0.03 --cycles 2000 --faults links=2 --routing adaptive
faults_timed|0|torus:8x8 --rate 0.02 --cycles 6000 --faults nodes=1,at=2000 --seed 3
app_reduce|0|cccb:n=3 --app reduce:rounds=3
trace_gaps|0|torus:4x4 --traffic trace:$GAP
bursts|0|torus:4x4 --burst 5:20000 --rate 0.5 --cycles 100000 --seed 3
deadlock|3|torus:16 --traffic tornado --no-classes --buffer-words 3 --packet-words 3:0
"
# name | rica run arguments (async engine: exactly once)
ASYNC_RUNS="
async_torus|torus:16x16 --rate 0.2 --packets 50 --threads 2
async_cccb_adaptive|cccb:n=3 --rate 0.3 --packets 40 --threads 2 --routing adaptive
async_faults|torus:8x8 --rate 0.2 --packets 40 --faults links=4
async_sort|mesh:8x8 --app sort --threads 2
async_dragonfly|dragonfly:h=2 --rate 1 --packets 40 --threads 2
async_hyperx|hyperx:4x4,T=4 --rate 1 --packets 40 --threads 2
async_slimfly|slimfly:q=5 --rate 1 --packets 40 --threads 2
async_dragonfly_valiant|dragonfly:h=2 --rate 1 --packets 40 --threads 2 --routing valiant
async_dragonfly_ugal|dragonfly:h=2 --rate 1 --packets 40 --threads 2 --routing ugal-l
"

# The figures of a run's JSON: what must not change (wall-clock, memory, paths, provenance out).
figures() {  # figures JSON-FILE TRACE-FILE
  python3 - "$1" "$2" <<'EOF'
import hashlib, json, sys
VOLATILE = {"wall_s", "packets_per_s", "packet_hops_per_s", "peak_rss_kb", "bytes_per_pe", "command_line",
            "outputs", "rica_version", "start_time", "threads", "distributed", "provenance", "hostname", "host",
            "json", "trace", "out", "csv",
            "link_model"}  # issue 45: a sentence stating model.link_cycles, which is compared
def clean(x, top):
    if isinstance(x, dict):
        return {k: clean(v, False) for k, v in x.items() if k not in VOLATILE and "wall" not in k and "per_s" not in k}
    if isinstance(x, list):
        return [clean(v, False) for v in x]
    if isinstance(x, str) and "/" in x and ("trace:" in x or "file:" in x):  # a path inside a spec
        return x.split(":")[0] + ":" + x.rsplit("/", 1)[1]
    return x
j = clean(json.load(open(sys.argv[1])), True)
try:
    j["trace_sha256"] = hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
except FileNotFoundError:
    j["trace_sha256"] = None
print(json.dumps(j, sort_keys=True))
EOF
}

: > "$TMP/actual.jsonl"
while IFS='|' read -r name want args; do
  [ -n "$name" ] || continue
  d=$TMP/$name
  mkdir -p "$d"
  # shellcheck disable=SC2086
  "$RICA" run $args --engine cycle --quiet --json "$d/run.json" --trace "$d/trace.csv" >/dev/null 2>"$d/err"
  got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL [$name: exit $got, want $want]: $(head -2 "$d/err")"
    fail=1
    continue
  fi
  printf '%s\t%s\n' "$name" "$(figures "$d/run.json" "$d/trace.csv")" >> "$TMP/actual.jsonl"
done <<< "$CYCLE_RUNS"

# rica os: drain, flush and drain-pe on one partition of two jobs (the summary and every switch).
"$RICA" os cbanyan:n=3 --policy drain,flush,drain-pe --rate 0.05,0.3 --slice 40,200 --packets 20 --no-plot --quiet \
  --out "$TMP/os" >/dev/null 2>"$TMP/os.err" || { echo "FAIL [os: $(head -2 "$TMP/os.err")]"; fail=1; }
if [ -s "$TMP/os/os.json" ]; then
  printf '%s\t%s\n' os "$(figures "$TMP/os/os.json" "$TMP/os/switches.csv")" >> "$TMP/actual.jsonl"
fi

python3 - "$TMP/actual.jsonl" "$EXPECTED" "$UPDATE" <<'EOF' || fail=1
import json, sys
actual = {}
for line in open(sys.argv[1]):
    name, figs = line.rstrip("\n").split("\t", 1)
    actual[name] = json.loads(figs)
if sys.argv[3] == "--update":
    json.dump(actual, open(sys.argv[2], "w"), indent=1, sort_keys=True)
    open(sys.argv[2], "a").write("\n")
    print(f"corpus: wrote {len(actual)} runs to {sys.argv[2]}")
    sys.exit(0)
expected = json.load(open(sys.argv[2]))
bad = 0
for name in sorted(set(expected) | set(actual)):
    e, a = expected.get(name), actual.get(name)
    if e == a:
        continue
    bad += 1
    if e is None or a is None:
        print(f"FAIL [{name}: {'not in expected.json' if e is None else 'did not run'}]")
        continue
    keys = sorted(k for k in set(e) | set(a) if e.get(k) != a.get(k))
    print(f"FAIL [{name}: differs in {', '.join(keys[:8])}]: " +
          "; ".join(f"{k} {json.dumps(e.get(k))[:60]} -> {json.dumps(a.get(k))[:60]}" for k in keys[:3]))
print(f"corpus: {len(actual) - bad} of {len(expected)} runs identical to tests/corpus/expected.json")
sys.exit(1 if bad else 0)
EOF

# The async engine: exactly once.
while IFS='|' read -r name args; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  "$RICA" run $args --engine async --quiet --json "$TMP/$name.json" >/dev/null 2>"$TMP/$name.err" ||
    { echo "FAIL [$name: exit $?]: $(head -2 "$TMP/$name.err")"; fail=1; continue; }
  python3 -c "
import json, sys
j = json.load(open('$TMP/$name.json'))
ok = j['conservation_ok'] and j['verified'] and j['lost'] == 0 and j['duplicates'] == 0 and j['verify_method'] == 'bitmap'
sys.exit(0 if ok and j['delivered'] > 0 else 1)" || { echo "FAIL [$name: not exactly once]"; fail=1; }
done <<< "$ASYNC_RUNS"

# 2 MPI ranks: the one-process figures and trace (skipped without MPI). Under ASan without the
# leak check in the ranks (OpenMPI's own allocations, as in tests/mpi_tests.sh).
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
if [ -z "$UPDATE" ] && command -v mpirun >/dev/null &&
   OMPI_MCA_rmaps_base_oversubscribe=1 timeout 60 mpirun --quiet --allow-run-as-root --oversubscribe -np 2 \
     "$RICA" run torus:4x4 --engine cycle --cycles 20 --threads 1 2>/dev/null | grep -q '^ranks  '; then
  for name in torus_adaptive bursts torus_saturated; do
    args=$(printf '%s\n' "$CYCLE_RUNS" | grep "^$name|" | cut -d'|' -f3)
    d=$TMP/mpi_$name
    mkdir -p "$d"
    # shellcheck disable=SC2086
    OMPI_MCA_mpi_yield_when_idle=1 timeout 120 mpirun --quiet --allow-run-as-root --oversubscribe -np 2 "$RICA" run $args \
      --engine cycle --quiet --json "$d/run.json" --trace "$d/trace.csv" >/dev/null 2>"$d/err" ||
      { echo "FAIL [$name over 2 ranks: $(head -2 "$d/err")]"; fail=1; continue; }
    python3 - "$EXPECTED" "$name" "$(figures "$d/run.json" "$d/trace.csv")" <<'EOF' || fail=1
import json, sys
e = json.load(open(sys.argv[1]))[sys.argv[2]]
a = json.loads(sys.argv[3])
keys = sorted(k for k in set(e) | set(a) if e.get(k) != a.get(k) and k not in ("config", "model"))
if keys:
    print(f"FAIL [{sys.argv[2]} over 2 ranks: differs in {', '.join(keys[:8])}]")
    sys.exit(1)
EOF
  done
else
  echo "corpus: MPI runs skipped (no MPI, or --update)"
fi

if [ "$fail" = 0 ]; then echo "corpus_tests: ok"; fi
exit "$fail"
