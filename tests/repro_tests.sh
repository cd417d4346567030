#!/usr/bin/env bash
# Issue 15: runs people can repeat and compare. Reproduce-from-JSON, echo lines that re-run, the
# consistency of the options every subcommand shares, trace replay, traffic matrices, the
# provenance of every JSON report. Usage: repro_tests.sh <rica>  (needs python3 for JSON/CSV checks)
set -u
RICA=${1:?path to rica}
RICA=$(cd "$(dirname "$RICA")" && pwd)/$(basename "$RICA")  # the script works in a temporary directory
EX=$(cd "$(dirname "$0")/../examples" && pwd)
DATA=$(cd "$(dirname "$0")/data" && pwd)
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failed() { echo "FAIL [$1]"; fail=1; }

# ---- 1. rica run --config previous.json reproduces the run (cycle engine: identical figures) ----
"$RICA" run torus:4x4 --engine cycle --traffic hotspot --rate 0.2 --cycles 400 --warmup 40 --link-cycles 2 \
  --timing saf --arbitration rr --buffer-words 12 --packet-words 4:2 --seed 7 --source-queue 3 --quiet \
  --json a.json --trace a.csv > /dev/null || failed "first run"
"$RICA" run --config a.json --quiet --json b.json --trace b.csv > /dev/null || failed "run --config a.json"
cmp -s a.csv b.csv || failed "re-run from JSON: traces differ"
python3 - a.json b.json <<'PY' || failed "re-run from JSON: figures differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
host = {"wall_s", "packets_per_s", "packet_hops_per_s", "packet_transfers_per_s", "peak_rss_kb", "bytes_per_pe", "command_line", "start_time", "outputs"}
diff = [k for k in a if k not in host and a[k] != b.get(k)]
assert not diff, diff
assert a["delivered"] > 0
for k in ("rica_version", "command_line", "seed", "threads", "start_time", "config"):
    assert k in a, k
c = a["config"]
# the complete resolved configuration: every model setting, defaults filled in
for k, v in {"engine": "cycle", "timing": "saf", "arbitration": "rr", "link-cycles": "2", "buffer-words": 12,
             "packet-words": "4:2", "seed": 7, "source-queue": 3, "cycles": 400, "warmup": 40, "batch": 16,
             "block": 64, "traffic": "hotspot", "rate": 0.2, "topology": "torus:4x4", "no-classes": False}.items():
    assert str(c.get(k)) == str(v), (k, c.get(k), v)
assert c["threads"] >= 1 and a["threads"] == c["threads"]
assert a["rica_version"].split(" ")[0].count(".") == 2, a["rica_version"]
PY
# the command line overrides the file
"$RICA" run --config a.json --seed 8 --quiet --json c.json > /dev/null || failed "config + override"
python3 -c "import json,sys; c=json.load(open('c.json')); sys.exit(c['seed'] != 8 or c['config']['timing'] != 'saf')" ||
  failed "command line does not override --config"
# a plain JSON object of options works as well
printf '{"topology": "ring:x", "traffic": "uniform"}' > bad.json
"$RICA" run --config bad.json --quiet > /dev/null 2>&1; [ $? = 2 ] || failed "config with a bad topology: exit 2"
printf '{"topology": "torus:4x4", "engine": "cycle", "cycles": 200, "rate": 0.1}' > opts.json
"$RICA" run --config opts.json --quiet --json d.json > /dev/null || failed "config object of options"
python3 -c "import json,sys; sys.exit(json.load(open('d.json'))['config']['cycles'] != 200)" || failed "config object value"

# TOML works the same way (top-level keys)
printf 'topology = "torus:4x4"\nengine = "cycle"\ncycles = 200\nrate = 0.1\nno-classes = false\n' > opts.toml
"$RICA" run --config opts.toml --quiet --json e.json > /dev/null || failed "config TOML"
python3 -c "import json,sys; c=json.load(open('e.json'))['config']; sys.exit(c['cycles'] != 200 or c['engine'] != 'cycle')" ||
  failed "config TOML values"

# ---- 2. the echo line re-runs the same thing (traffic, --app, cycle engine) ----
for args in "torus:4x4 --engine cycle --rate 0.3 --cycles 300 --link-cycles words --timing saf --threads 1" \
            "cccb:n=2 --app reduce:rounds=3 --engine cycle --cycles 500" "torus:4x4 --app reduce:rounds=2"; do
  # shellcheck disable=SC2086
  echo_line=$("$RICA" run $args 2>&1 >/dev/null | head -1)
  # shellcheck disable=SC2086
  r1=$("$RICA" run $args --quiet | grep -E '^(topology|traffic|application|packets|hops|virtual)' | sed 's/ in [0-9.]* s$//')
  r2=$(eval "\"$RICA\" ${echo_line#rica } --quiet" | grep -E '^(topology|traffic|application|packets|hops|virtual)' | sed 's/ in [0-9.]* s$//')
  [ -n "$r1" ] && [ "$r1" = "$r2" ] || { failed "echo re-run of: $args"; echo "  echo: $echo_line"; }
done

# ---- 3. every subcommand: the shared options exist and mean the same thing ----
leaves=("list" "topo torus:4x4" "route torus:4x4 0 5" "run torus:4x4" "demo" "sweep torus:4x4" "os torus:4x4"
        "app sort -t torus:4x4" "app stencil -t torus:4x4" "experiment rwc1" "bound torus:4x4" "partition torus:4x4"
        "embed ring torus:4x4" "plot links x.json" "plot latency x.json" "plot sweep x.csv" "plot os x.csv" "report x.json"
        "os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1")
runs_something=("topo torus:4x4" "run torus:4x4" "demo" "sweep torus:4x4" "os torus:4x4" "os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1" "app sort -t torus:4x4"
                "app stencil -t torus:4x4" "experiment rwc1" "bound torus:4x4" "partition torus:4x4" "embed ring torus:4x4")
seeded=("topo torus:4x4" "run torus:4x4" "demo" "sweep torus:4x4" "os torus:4x4" "os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1" "app sort -t torus:4x4"
        "app stencil -t torus:4x4" "experiment rwc1" "bound torus:4x4" "partition torus:4x4")
help_of() {
  local words; read -r -a words <<< "$1"; local n=1
  case "${words[0]}" in app|plot) n=2;; esac
  "$RICA" "${words[@]:0:$n}" --help
}
for c in "${leaves[@]}"; do
  h=$(help_of "$c")
  for opt in --quiet --json --config; do grep -q -- "$opt" <<< "$h" || failed "rica $c --help lacks $opt"; done
  read -r -a w <<< "$c"
  : > afile  # a directory cannot be made under a regular file (a missing one is created: issue 45)
  e=$("$RICA" "${w[@]}" --json afile/x.json 2>&1 >/dev/null); s=$?
  [ $s = 2 ] && grep -q -- "--json" <<< "$e" || failed "rica $c --json into a directory that cannot be made: exit $s '$e'"
  e=$("$RICA" "${w[@]}" --config /nonexistent-dir/x.json 2>&1 >/dev/null); s=$?
  [ $s = 2 ] && grep -q -- "--config" <<< "$e" || failed "rica $c --config of a missing file: exit $s '$e'"
done
want_threads=$("$RICA" run torus:4x4 --threads 2000 2>&1 >/dev/null)
for c in "${runs_something[@]}"; do
  read -r -a w <<< "$c"
  grep -q -- "--threads" <<< "$(help_of "$c")" || failed "rica $c lacks --threads"
  got=$("$RICA" "${w[@]}" --threads 2000 2>&1 >/dev/null)
  [ "$got" = "$want_threads" ] || failed "rica $c --threads 2000: '$got' (run says '$want_threads')"
done
want_seed=$("$RICA" run torus:4x4 --seed -1 2>&1 >/dev/null)
for c in "${seeded[@]}"; do
  read -r -a w <<< "$c"
  got=$("$RICA" "${w[@]}" --seed -1 2>&1 >/dev/null)
  [ "$got" = "$want_seed" ] || failed "rica $c --seed -1: '$got' (run says '$want_seed')"
done
for c in "sweep torus:4x4" "os torus:4x4" "os-stream torus:4x4" "experiment rwc1"; do
  grep -q -- "--out" <<< "$(help_of "$c")" || failed "rica $c lacks --out"
  grep -q -- "--progress" <<< "$(help_of "$c")" || failed "rica $c lacks --progress"
done
# --rate: one name for the offered load (sweep keeps --rates as an alias)
for c in "run torus:4x4" "sweep torus:4x4" "os torus:4x4" "os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1"; do
  read -r -a w <<< "$c"
  e=$("$RICA" "${w[@]}" --rate 2 2>&1 >/dev/null); [ $? = 2 ] && grep -q -- "--rate" <<< "$e" || failed "rica $c --rate 2: '$e'"
done
grep -q -- "--packet-words" <<< "$("$RICA" sweep --help)" || failed "sweep lacks --packet-words"
# JSON to standard output with '-', each with the provenance block
for c in "list" "topo torus:4x4" "route torus:4x4 0 5" "partition torus:4x4 --parts 2" "embed ring torus:4x4" \
         "bound torus:4x4" "run torus:4x4 --packets 3" "sweep torus:4x4 --rate 0.1 --cycles 100 --no-plot --out sw"; do
  read -r -a w <<< "$c"
  "$RICA" "${w[@]}" --json - --quiet > out.json 2> /dev/null || { failed "rica $c --json -"; continue; }
  python3 -c "
import json,sys; j=json.load(open('out.json'))
sys.exit(not all(k in j for k in ('rica_version','command_line','seed','threads','start_time','config')))" ||
    failed "rica $c --json -: no provenance block"
done
# os.json records the threads actually used (never 0)
"$RICA" os torus:4x4 --rate 0.1 --slice 40 --packets 10 --threads 0 --quiet --json os.json > /dev/null || failed "os --json"
python3 -c "
import json,sys; j=json.load(open('os.json'))
sys.exit(not (j['threads'] >= 1 and j['config']['threads'] == j['threads']))" || failed "os.json threads"
# --quiet silences the console (results still written)
[ -z "$("$RICA" topo torus:4x4 --quiet --json q.json)" ] && [ -s q.json ] || failed "topo --quiet --json"

# ---- issue 13: --routing on every command that runs a machine; recorded and re-runnable ----
for c in "run torus:4x4" "demo" "sweep torus:4x4" "os torus:4x4" "app sort -t torus:4x4" "app stencil -t torus:4x4"; do
  grep -q -- "--routing" <<< "$(help_of "$c")" || failed "rica $c lacks --routing"
done
"$RICA" run torus:4x4 --engine cycle --rate 0.3 --cycles 300 --routing adaptive --quiet --json ra.json --trace ra.csv \
  > /dev/null || failed "adaptive run"
"$RICA" run --config ra.json --quiet --json rb.json --trace rb.csv > /dev/null || failed "adaptive re-run from JSON"
cmp -s ra.csv rb.csv || failed "adaptive re-run from JSON: traces differ"
python3 -c "
import json,sys; a=json.load(open('ra.json'))
sys.exit(not (a['config']['routing'] == 'adaptive' and a['model']['routing'] == 'adaptive' and a['model']['buffer_classes'] == 3))" ||
  failed "the routing and its classes in the run's JSON"
echo_line=$("$RICA" run torus:4x4 --engine cycle --rate 0.3 --cycles 300 --routing adaptive 2>&1 >/dev/null | head -1)
grep -q -- "--routing adaptive" <<< "$echo_line" || failed "the echo line lacks --routing adaptive: $echo_line"

# ---- 4. honest offered load: the source queue and the sweep's offered vs accepted ----
"$RICA" run torus:4x4 --source-queue 0 --packets 3 --quiet > /dev/null 2>&1; [ $? = 2 ] || failed "--source-queue 0 async: exit 2"
"$RICA" sweep torus:4x4 --rate 0.05,1 --cycles 1000 --no-plot --out sw --quiet > /dev/null || failed "sweep"
python3 - sw/sweep.csv <<'PY' || failed "sweep: offered/generated/accepted columns, warm-up default"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for k in ("offered", "generated", "accepted", "warmup", "link_cycles", "buffer_words", "packet_words", "source_queue"):
    assert k in rows[0], k
assert all(r["warmup"] == "100" for r in rows), [r["warmup"] for r in rows]  # cycles / 10
hi = rows[-1]
assert float(hi["offered"]) == 1 and float(hi["generated"]) < 0.9 * float(hi["offered"])  # throttled at saturation
PY
"$RICA" sweep torus:4x4 --rate 1 --cycles 1000 --source-queue 0 --no-plot --out sw0 --quiet > /dev/null || failed "sweep unbounded"
python3 -c "
import csv,sys; r=list(csv.DictReader(open('sw0/sweep.csv')))[0]
sys.exit(abs(float(r['generated']) - 1.0) > 1e-9)" || failed "--source-queue 0: generated load is not the offered load"

# ---- 5. traffic from files: trace replay is exact; a matrix is followed ----
"$RICA" run torus:4x4 --engine cycle --rate 0.1 --cycles 300 --quiet --trace t1.csv > /dev/null || failed "trace source run"
"$RICA" run hypercube:4 --engine cycle --traffic trace:t1.csv --quiet --trace t2.csv --json t2.json > /dev/null ||
  failed "replay on another topology"
python3 - t1.csv t2.csv <<'PY' || failed "replayed run does not deliver exactly the trace's packets"
import csv, sys
def packets(f):
    return sorted((r["src"], r["dst"], int(r["inject"]), r["words"]) for r in csv.DictReader(open(f)))
a, b = packets(sys.argv[1]), packets(sys.argv[2])
assert len(a) > 100 and a == b, (len(a), len(b))
PY
"$RICA" run "file:$EX/ring8.txt" --engine cycle --traffic "trace:$EX/trace8.csv" --quiet --trace t3.csv > /dev/null ||
  failed "examples/trace8.csv"
[ "$(($(wc -l < t3.csv) - 1))" = 7 ] || failed "examples/trace8.csv: 7 packets"
# matrix: each pair's delivered count within 5 standard deviations of rate x window (zero pairs: 0)
cycles=20000
for m in matrix8.txt matrix8_sparse.csv; do
  "$RICA" run "file:$EX/ring8.txt" --engine cycle --traffic "matrix:$EX/$m" --cycles $cycles --quiet --trace m.csv > /dev/null ||
    { failed "matrix $m"; continue; }
  python3 - "$EX/$m" m.csv $cycles <<'PY' || failed "matrix $m: delivered counts do not follow the matrix"
import csv, math, re, sys
path, trace, cycles = sys.argv[1], sys.argv[2], int(sys.argv[3])
rate = {}
lines = [l.split("#")[0].strip() for l in open(path)]
lines = [l for l in lines if l]
if lines[0] == "src,dst,rate":
    for l in lines[1:]:
        s, d, r = l.split(","); rate[(int(s), int(d))] = rate.get((int(s), int(d)), 0) + float(r)
else:
    for s, l in enumerate(lines):
        for d, r in enumerate(re.split(r"[ ,\t]+", l)):
            if float(r) > 0: rate[(s, d)] = float(r)
count = {}
for r in csv.DictReader(open(trace)):
    k = (int(r["src"]), int(r["dst"])); count[k] = count.get(k, 0) + 1
assert set(count) <= set(rate), set(count) - set(rate)
for k, r in rate.items():
    want = r * cycles
    assert abs(count.get(k, 0) - want) <= 5 * math.sqrt(want), (k, count.get(k, 0), want)
PY
done

# ---- progress: nothing into a pipe unless --progress (then at most one line per tenth), none with --quiet ----
[ -z "$("$RICA" sweep torus:4x4 --rate 0.01:0.2:0.01 --cycles 200 --no-plot --out sp 2>&1 >/dev/null)" ] ||
  failed "sweep writes progress into a pipe"
n=$("$RICA" sweep torus:4x4 --rate 0.01:0.2:0.01 --cycles 200 --no-plot --out sp --progress 2>&1 >/dev/null | grep -c 'runs\]')
[ "$n" -ge 1 ] && [ "$n" -le 11 ] || failed "sweep --progress into a pipe: $n lines"
[ -z "$("$RICA" sweep torus:4x4 --rate 0.1 --cycles 200 --no-plot --out sp --quiet 2>&1)" ] ||
  failed "sweep --quiet is not silent"

# ---- 6. several seeds per point: mean and 95% CI; figures ----
"$RICA" sweep torus:4x4 --rate 0.05,0.2 --cycles 400 --seeds 3 --no-plot --out ss --quiet --json ss.json > /dev/null ||
  failed "sweep --seeds 3"
python3 - ss/sweep.csv ss/sweep_mean.csv ss.json <<'PY' || failed "sweep --seeds: per-seed rows, mean and CI"
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
means = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 6 and len(means) == 2, (len(rows), len(means))
assert sorted({r["seed"] for r in rows}) == ["1", "2", "3"]
for m in means:
    pts = [float(r["latency_mean"]) for r in rows if r["offered"] == m["offered"]]
    mu = sum(pts) / 3
    sd = math.sqrt(sum((p - mu) ** 2 for p in pts) / 2)
    assert abs(float(m["latency_mean"]) - mu) < 1e-3, (m, mu)
    assert abs(float(m["latency_ci95"]) - 4.303 * sd / math.sqrt(3)) < 1e-3, (m, sd)
assert len(json.load(open(sys.argv[3]))["means"]) == 2
PY
"$RICA" run torus:4x4 --engine cycle --rate 0.2 --cycles 300 --seeds 3 --quiet --json rs.json > /dev/null ||
  failed "run --seeds 3"
python3 - rs.json <<'PY' || failed "run --seeds: per-seed values, mean and CI"
import json, math
j = json.load(open("rs.json"))
f = j["seeds"]["figures"]["latency_mean"]
v = f["values"]
assert len(v) == 3 and v[0] == j["latency_mean"] and len(set(v)) > 1, v
mu = sum(v) / 3
assert abs(f["mean"] - mu) < 1e-9
assert abs(f["ci95"] - 4.303 * math.sqrt(sum((x - mu) ** 2 for x in v) / 2) / math.sqrt(3)) < 1e-9
PY
PLOTPY=python3; [ -x /usr/bin/python3 ] && PLOTPY=/usr/bin/python3  # the interpreter rica plots with
if "$PLOTPY" -c "import matplotlib" 2> /dev/null; then
  "$RICA" plot sweep ss/sweep.csv --out figs --quiet > /dev/null || failed "plot sweep"
  "$RICA" run torus:4x4 --packets 20 --quiet --json r.json --csv r.csv > /dev/null || failed "run for plot links"
  "$RICA" plot links r.json --out figs --quiet > /dev/null || failed "plot links"
  # The Graphviz graph: one edge per link of torus:4x4 (64), each with its packet count.
  [ "$(grep -c -- ' -> .*packets' figs/r.links.dot)" = 64 ] || failed "plot links: links.dot with one edge per link"
  python3 - figs <<'PY' || failed "figures: 1600 px wide PNG and SVG"
import os, struct, sys
for name in ("latency_vs_accepted", "latency_vs_offered", "latency_vs_delivered", "r.links"):
    png = os.path.join(sys.argv[1], name + ".png")
    with open(png, "rb") as f:
        head = f.read(24)
    assert struct.unpack(">I", head[16:20])[0] == 1600, (png, struct.unpack(">I", head[16:20]))
    assert os.path.getsize(os.path.join(sys.argv[1], name + ".svg")) > 0
PY
fi

# ---- faults: --faults is recorded in the JSON config and the run repeats from it (docs/faults.md) ----
"$RICA" run torus:8x8 --engine cycle --rate 0.2 --cycles 400 --faults links=3,nodes=1,at=150 --seed 3 --quiet \
  --json f1.json --trace f1.csv > /dev/null || failed "faults: first run"
"$RICA" run --config f1.json --quiet --json f2.json --trace f2.csv > /dev/null || failed "faults: run --config"
cmp -s f1.csv f2.csv || failed "faults: re-run from JSON: traces differ"
python3 - f1.json f2.json <<'PY' || failed "faults: JSON config or figures"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["config"]["faults"] == "links=3,nodes=1,at=150", a["config"]
assert a["faults"] == b["faults"] and a["faults"]["applied_at"] == 150, a["faults"]
assert a["dropped_by_faults"] == b["dropped_by_faults"]
assert a["injected"] == a["delivered"] + a["in_network"] + a["dropped_by_faults"]
PY

# ---- issue 13: --faults on rica os, sweep and experiment; routing and faults columns ----
"$RICA" os torus:4x4 --rate 0.1 --slice 40 --packets 10 --faults links=2 --seed 5 --quiet --json osf.json > /dev/null ||
  failed "os --faults"
"$RICA" os --config osf.json --quiet --json osg.json > /dev/null || failed "os --faults: re-run from JSON"
python3 - osf.json osg.json <<'PY' || failed "os --faults: JSON, exactly-once"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["config"]["faults"] == "links=2", a["config"]
assert a["faults"]["spec"] == "links=2" and a["faults"]["failed_links"] == 2, a["faults"]
assert a["faults"] == b["faults"], (a["faults"], b["faults"])
for p in a["policies"].values():
    assert p["lost"] == 0 and p["duplicates"] == 0 and p["misdelivered"] == 0, p
assert [r["completion"] for r in a["runs"]] == [r["completion"] for r in b["runs"]]
PY
"$RICA" sweep torus:4x4 --rate 0.05,0.2 --cycles 400 --faults links=2 --seed 3 --no-plot --out swf --quiet \
  --json swf.json > /dev/null || failed "sweep --faults"
python3 - swf/sweep.csv swf/sweep_mean.csv swf.json <<'PY' || failed "sweep: routing and faults columns"
import csv, json, sys
for f in sys.argv[1:3]:
    rows = list(csv.DictReader(open(f)))
    assert rows and all(r["routing"] == "deterministic" and r["faults"] == "links=2" for r in rows), rows
assert json.load(open(sys.argv[3]))["config"]["faults"] == "links=2"
PY
"$RICA" sweep torus:4x4 --rate 0.1 --cycles 300 --routing adaptive --no-plot --out swa --quiet > /dev/null ||
  failed "sweep --routing adaptive"
python3 -c "
import csv,sys; r=list(csv.DictReader(open('swa/sweep.csv')))
sys.exit(not all(x['routing'] == 'adaptive' and x['faults'] == 'none' for x in r))" || failed "sweep: routing column"
"$RICA" experiment mdce-1024 --networks 2DT --patterns uniform,mesh:wrap=0 --faults links=3 --quick --cycles 300 \
  --no-plot --out exf --quiet --json exf.json > /dev/null || failed "experiment --faults, mesh:wrap=0"
python3 - exf/points.csv exf.json <<'PY' || failed "experiment: routing and faults columns, mesh:wrap=0"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert {r["pattern"] for r in rows} == {"uniform", "mesh:wrap=0"}, {r["pattern"] for r in rows}
assert all(r["routing"] == "deterministic" and r["faults"] == "links=3" for r in rows), rows[0]
j = json.load(open(sys.argv[2]))
assert j["config"]["faults"] == "links=3" and j["setup"]["faults"] == "links=3"
assert j["setup"]["x_axis"]["mesh:wrap=0"] == j["setup"]["x_axis"]["mesh"]
PY

# generic adaptive routing on an irregular file: graph (up*/down* escape): rica route shows it
out=$("$RICA" route "file:$DATA/irregular12.txt" 0 10 --routing adaptive) || failed "route --routing adaptive on file:"
grep -q "candidates: port" <<< "$out" && grep -q "class 2" <<< "$out" || failed "route --routing adaptive on file: '$out'"
"$RICA" run "file:$DATA/irregular12.txt" --engine cycle --routing adaptive --rate 0.3 --cycles 300 --quiet > /dev/null ||
  failed "run --routing adaptive on an irregular file: graph"

# adaptive routing around static faults: exactly once in both engines; at= refused
for eng in "cycle --cycles 400" "async --packets 50"; do
  read -r -a w <<< "$eng"
  "$RICA" run torus:6x6 --engine "${w[@]}" --rate 0.2 --faults links=4,nodes=1 --routing adaptive --seed 2 --quiet \
    --json fa.json > /dev/null || failed "faults + adaptive (${w[0]})"
  python3 -c "
import json,sys; a=json.load(open('fa.json'))
ok = a['duplicates'] == 0 and a['lost'] == 0 and a['delivered'] > 0 and a['in_network'] == 0
ok = ok and a['injected'] == a['delivered'] + a['in_network'] + a['dropped_by_faults'] and a['model']['routing'] == 'adaptive'
sys.exit(not ok)" || failed "faults + adaptive (${w[0]}): not exactly once"
done

echo "repro_tests: done"
exit $fail
