#!/usr/bin/env bash
# Issue 30: every item of "see a run" on every topology family `rica list` names (one tiny spec
# each): a cycle-engine run with --telemetry (windows that sum to the run's totals), the latency
# distributions in its JSON (total, network, per class), `rica plot links` (utilisation on a 0-1
# scale, one panel per direction, R.links.png/.svg/.dot beside R.json), --trace-events (valid
# Chrome trace-event JSON), `rica report` (the HTML page with its sections), and an async-engine
# run with --telemetry (windows that stop the world). A family missing from SPECS below is run
# with the example spec `rica list` gives it, so a new family is covered without an edit.
# Usage: family_telemetry_tests.sh <rica> <source dir>. Exit 77 (skipped) without matplotlib.
# FAMILIES="torus hyperx" runs those families only.
set -u
RICA=${1:?path to rica}
SRC=${2:?source dir}
PY=/usr/bin/python3
"$PY" -c "import matplotlib" 2>/dev/null || { echo "skipped: $PY has no matplotlib"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
failed() { echo "FAIL [$1] $2"; fail=1; }

declare -A SPECS=(
  [cbanyan]=cbanyan:n=3 [ccc]=ccc:n=3 [dce]=dce:n=3,delta=2 [comega]=comega:n=3 [mdce]=mdce:B=1,C=1,P=1,n=2
  [cccb]=cccb:n=2 [cb2]=cb2:n=2 [mesh]=mesh:4x3 [torus]=torus:4x4 [kary]=kary:k=3,n=2 [hypercube]=hypercube:4
  [mesh8]=mesh8:4 [torus8]=torus8:4 [mxx]=mxx:8 [msn]=msn:4x4 [debruijn]=debruijn:4 [ubruijn]=ubruijn:4
  [omega]=omega:3 [fattree]=fattree:3 [shuffle]=shuffle:4 [file]=file:$SRC/examples/ring8.txt
  [product]=product:torus:4*mesh:2x2 [hier]=hier:mesh:2x2/debruijn:2 [dragonfly]=dragonfly:h=1
  [hyperx]=hyperx:3x3,T=2 [slimfly]=slimfly:q=5
)

# The families `rica list` names, and each one's example spec.
"$RICA" list > "$tmp/list.txt" || { echo "FAIL rica list"; exit 1; }
families=$("$PY" - "$tmp/list.txt" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
fam, cur = [], None
for line in lines[1:]:
    if line and not line.startswith(" "):
        break  # the next registry (traffic patterns)
    m = re.match(r"^  ([a-z0-9_]+)\s{2,}", line)
    if m:
        cur = m.group(1)
    m = re.match(r"^\s+e\.g\. (\S+)", line)
    if m and cur:
        fam.append(f"{cur} {m.group(1)}")
        cur = None
print("\n".join(fam))
PY
)
n=$(printf '%s\n' "$families" | grep -c .)
[ "$n" -ge 20 ] || { echo "FAIL: only $n families read from rica list"; exit 1; }

while read -r fam example; do
  spec=${SPECS[$fam]:-$example}
  case " ${FAMILIES:-$fam} " in *" $fam "*) ;; *) continue ;; esac  # FAMILIES="a b": only those
  d="$tmp/$fam"
  mkdir -p "$d"
  was=$fail; fail=0
  if ! "$RICA" run "$spec" --engine cycle --rate 0.1 --cycles 400 --telemetry 100 --telemetry-links --json "$d/r.json" \
       --csv "$d/r.csv" --trace-events "$d/r.trace.json" --quiet > "$d/run.out" 2>&1; then
    failed "$fam" "run $spec --telemetry: $(tail -1 "$d/run.out")"
    continue
  fi
  "$RICA" plot links "$d/r.json" --quiet > "$d/plot.out" 2>&1 || failed "$fam" "plot links: $(tail -1 "$d/plot.out")"
  "$RICA" report "$d/r.json" --quiet > "$d/report.out" 2>&1 || failed "$fam" "report: $(tail -1 "$d/report.out")"
  "$RICA" run "$spec" --rate 0.2 --packets 20 --threads 2 --telemetry 100 --json "$d/a.json" --quiet \
    > "$d/async.out" 2>&1 || failed "$fam" "async run --telemetry: $(tail -1 "$d/async.out")"
  PYTHONPATH="$SRC/scripts" "$PY" - "$d" "$spec" <<'PY' || failed "$fam" "checks of $spec (above)"
import csv, json, os, sys
import rica_heatmap
d, spec = sys.argv[1], sys.argv[2]
j = json.load(open(f"{d}/r.json"))
assert j["conservation_ok"] and j["delivered"] > 0, "the run delivered nothing"
# Telemetry: windows that sum to the run's totals; the per-link table to its packet-hops.
t = j["telemetry"]
w = list(csv.DictReader(open(f"{d}/r.telemetry_windows.csv")))
assert t["windows"] == len(w) >= 4, (t["windows"], len(w))
assert sum(int(r["delivered"]) for r in w) == j["delivered"], "windows' delivered"
assert sum(int(r["packet_hops"]) for r in w) == j["packet_hops"], "windows' packet-hops"
links = list(csv.DictReader(open(f"{d}/r.telemetry_links.csv")))
assert sum(int(r["packets"]) for r in links) == j["packet_hops"], "links table's packets"
assert t["stops"] >= t["windows"] and t["stopped_s"] >= 0, t
# Latency distributions: total and network, and per buffer class, each a histogram with its CDF.
ld = j["latency_distribution"]
for k in ("total", "network"):
    h = ld[k]
    assert sum(h["count"]) == h["total"] == j["measured"] > 0, (k, h["total"], j["measured"])
    assert abs(h["cdf"][-1] - 1) < 1e-9 and all(a <= b for a, b in zip(h["cdf"], h["cdf"][1:])), k
# Per buffer class where the network has several (the classes that delivered), adding up to the run's.
classes = list(csv.DictReader(open(f"{d}/r.telemetry_classes.csv")))
if len({r["class"] for r in classes}) > 1:
    assert sum(c["total"]["total"] for c in ld["classes"]) == ld["total"]["total"], "per class"
else:
    assert "classes" not in ld
# The heat map beside the JSON: utilisation 0-1 per directed link, one panel per direction.
for f in ("r.links.png", "r.links.svg", "r.links.dot"):
    assert os.path.getsize(f"{d}/{f}") > 0, f"{f} not written beside the JSON"
labels = {int(r["pe"]): r["label"] for r in csv.DictReader(open(f"{d}/r.csv"))}
L = rica_heatmap.Links(j, labels, list(csv.DictReader(open(f"{d}/r.links.csv"))))
assert L.word == "utilisation" and L.util, "not normalised to utilisation"
assert all(0.0 <= u <= 1.0 for u in L.util.values()) and max(L.util.values()) > 0, "utilisation outside 0-1"
# The drawing the family declares (its registry entry, the report's topology_drawing) fits its labels.
assert L.drawing in ("grid", "ring", "stages", "levels", "graph"), f"drawing {L.drawing!r}"
if L.drawing == "grid":
    assert rica_heatmap.grid_positions(L) is not None, "declares grid; its labels are not coordinates"
elif L.drawing != "graph":
    assert rica_heatmap.stage_positions(L) is not None, f"declares {L.drawing}; its labels are not stages"
# Trace-viewer export: Chrome trace-event JSON with packets' slices and flows.
ev = json.load(open(f"{d}/r.trace.json"))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
assert any(e.get("ph") == "X" for e in ev), "no slices in the trace events"
assert all("ph" in e and "pid" in e for e in ev)
# The report page: its sections and its figures inline.
page = open(f"{d}/r.report.html").read()
for s in ("summary", "latency", "links", "telemetry"):
    assert f'<section id="{s}">' in page, f"report lacks section {s}"
assert page.count("data:image/svg+xml;base64,") >= 3, "figures not inline"
# The async engine: windows of 100 us that sum to its totals.
a = json.load(open(f"{d}/a.json"))
assert a["conservation_ok"] and a["telemetry"]["time_unit"] == "ns", a["telemetry"]
assert a["telemetry"]["windows"] >= 1 and a["telemetry"]["stops"] >= a["telemetry"]["windows"]
PY
  [ $fail = 0 ] && echo "ok   $fam ($spec)"
  fail=$((was | fail))
done <<< "$families"
exit $fail
