#!/usr/bin/env bash
# rica report (one self-contained HTML page per run, sweep, os and experiment output) opened in
# headless Chromium (tests/browser_check.py: no console error, no missing image, a screenshot that
# is not blank), its input checks (not a report, missing, unwritable page: exit 2, one line, before
# any work), and --trace-events (Chrome trace-event JSON: well-formed, its counts those of the run).
# Usage: report_tests.sh <rica> <source dir>. Exit 77 (skipped) only when Chromium is absent outside CI.
set -u
RICA=${1:?path to rica}
SRC=${2:?source dir}
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
failed() { echo "FAIL: $*"; fail=1; }
one_line_exit2() {  # description args...
  local what=$1; shift
  local err; err=$("$RICA" "$@" 2>&1 >/dev/null); local s=$?
  local n; n=$(printf '%s\n' "$err" | grep -c .)
  [ "$s" = 2 ] && [ "$n" = 1 ] && [[ "$err" == "rica: error: "* ]] || failed "$what: exit $s, $n lines: $err"
}

# ---- outputs to report on ----
mkdir -p run
"$RICA" run torus:8x8 --engine cycle --rate 0.1 --cycles 1500 --telemetry 250 --json run/r.json --csv run/r.csv \
  --trace-events run/r.trace.json --trace-events-packets 1000000 --quiet || failed "run with telemetry and trace events"
# The async engine's telemetry (windows of 200 us, the world stopped at each end).
"$RICA" run torus:8x8 --rate 0.2 --packets 400 --threads 2 --telemetry 200 --json run/a.json --csv run/a.csv --quiet \
  || failed "async run with telemetry"
mkdir -p sweep
"$RICA" sweep torus:4x4 cccb:n=2 --rate 0.05,0.2,0.5 --cycles 1500 --out sweep --json sweep/sweep.json --quiet \
  || failed "sweep"
"$RICA" os torus:4x4 --rate 0.05 --slice 300 --packets 40 --telemetry 200 --out os --trace-events os_trace.json --quiet \
  > /dev/null || failed "os with telemetry and trace events"

# ---- the reports ----
"$RICA" report run/r.json --quiet || failed "report of a run"
"$RICA" report run/a.json --quiet || failed "report of an async run with telemetry"
"$RICA" report sweep --quiet || failed "report of a sweep directory"
"$RICA" report os --quiet || failed "report of an os directory"
"$RICA" report "$SRC/docs/experiments/adaptive" --out experiment.html --quiet || failed "report of an experiment"
"$RICA" report sweep/sweep.json --out sweep_from_json.html --quiet || failed "report of a sweep's --json"
for f in run/r.report.html run/a.report.html sweep/report.html os/report.html experiment.html sweep_from_json.html; do
  [ -s "$f" ] || failed "$f not written"
done
for id in provenance configuration summary latency links telemetry; do
  grep -q "<section id=\"$id\">" run/r.report.html || failed "run report lacks section $id"
done
for id in timeline telemetry figures; do grep -q "<section id=\"$id\">" os/report.html || failed "os report lacks $id"; done
grep -q '<section id="telemetry">' run/a.report.html || failed "async run report lacks its telemetry"
# Latency per buffer class (torus: the dateline classes) and per job (os) as figures on the pages.
grep -q "Latency per buffer class" run/r.report.html || failed "run report lacks the per-class latency figure"
grep -q "Latency per job" os/report.html || failed "os report lacks the per-job latency figure"
# The sweep page shows the sweep's own summary (rica sweep computes the knee once): its knees.
"$PY" - sweep/sweep_summary.csv sweep/report.html <<'PY' || failed "sweep report shows sweep_summary.csv's knees"
import csv, sys
page = open(sys.argv[2]).read()
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows
for r in rows:
    knee = str(float(r["knee"]))
    assert knee in page or f">= {float(r['knee']):.4g}" in page, (r["topology"], knee)
PY
grep -q 'rica run torus:8x8' run/r.report.html || failed "run report lacks the command line"
[ "$(grep -o '<img src="data:image/svg+xml;base64,' run/r.report.html | wc -l)" -ge 3 ] \
  || failed "run report: fewer than 3 inline figures"
[ "$(grep -o '<img src="data:image/svg+xml;base64,' os/report.html | wc -l)" -ge 4 ] \
  || failed "os report: fewer than 4 inline figures"
ls -a run os sweep | grep -q '\.part$' && failed "a temporary page left behind"

# ---- input checks: one line, exit 2, before any work ----
echo '{"a": 1}' > notreport.json
one_line_exit2 "report of a JSON that is not a report" report notreport.json
printf '\x00\x01binary' > bin.json
one_line_exit2 "report of a binary file" report bin.json
one_line_exit2 "report of a missing path" report no/such/path
mkdir -p empty
one_line_exit2 "report of a directory that is no output" report empty
one_line_exit2 "report into a directory that cannot be made" report run/r.json --out run/r.json/x.html
[ ! -e run/r.report.html.part ] || failed "unwritable page left a file"
one_line_exit2 "report --out and --json the same file" report run/r.json --out same.html --json same.html
err=$("$RICA" report notreport.json 2>&1 >/dev/null)
[[ "$err" == *"notreport.json"*"expected"* ]] || failed "not a report: message names the file and what is expected: $err"

# ---- --trace-events ----
one_line_exit2 "--trace-events on the async engine" run torus:4x4 --trace-events x.json
one_line_exit2 "--trace-events-packets 0" run torus:4x4 --engine cycle --trace-events x.json --trace-events-packets 0
one_line_exit2 "--trace-events into a directory that cannot be made" run torus:4x4 --engine cycle --trace-events run/r.json/x.json
"$PY" - run/r.json run/r.trace.json os_trace.json os/os.json <<'PY' || failed "trace events: well-formed, counts of the run"
import json, sys
run = json.load(open(sys.argv[1]))
def events(path):
    t = json.load(open(path))
    ev = t["traceEvents"]
    for e in ev:
        assert e["ph"] in "MXstf", e
        assert isinstance(e["pid"], int), e
        if e["ph"] != "M":
            assert isinstance(e["ts"], int) and isinstance(e["tid"], int), e
        if e["ph"] == "X":
            assert isinstance(e["dur"], int) and e["dur"] >= 0, e
        if e["ph"] in "stf":
            assert isinstance(e["id"], str), e
    return ev
ev = events(sys.argv[2])
te = run["trace_events"]
hops = [e for e in ev if e["ph"] == "X" and e["cat"] == "packet" and e["name"] != "queued"]
flows = {e["id"] for e in ev if e["ph"] == "s"}
ends = [e for e in ev if e["ph"] == "f"]
assert te["gaps"] == 0 and te["unfinished"] == 0, te
assert len(hops) == te["hops"] == run["packet_hops"], (len(hops), te, run["packet_hops"])
assert len(flows) == len(ends) == te["packets"] == te["delivered"], (len(flows), len(ends), te)
osj = json.load(open(sys.argv[4]))
ev = events(sys.argv[3])
pids = {e["pid"] for e in ev}
assert len(pids) == len(osj["runs"]) == osj["trace_events"]["runs"], (pids, len(osj["runs"]))
switches = sum(len(r.get("switches", [])) if isinstance(r.get("switches"), list) else 0 for r in osj["runs"])
got = sum(1 for e in ev if e["ph"] == "X" and e["name"].startswith("switch slot"))
want = sum(r["trace_events"]["switches"] for r in osj["runs"])
assert got == want > 0, (got, want)
assert any(e["ph"] == "X" and e["name"] == "halted" for e in ev)
PY

# ---- the pages in a real browser ----
"$PY" "$SRC/tests/browser_check.py" run/r.report.html run/a.report.html sweep/report.html os/report.html experiment.html --shots shots
s=$?
if [ $s = 77 ]; then
  [ $fail = 0 ] && exit 77
elif [ $s != 0 ]; then
  failed "browser check"
fi
[ $fail = 0 ] && echo "report tests passed"
exit $fail
