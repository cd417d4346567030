#!/usr/bin/env bash
# Input and output reliability (issue 47): every file a command writes, derived names included,
# takes part in the same-file check before the run; no output overwrites an input (rica report,
# --config); a UTF-8 byte order mark is accepted by every file reader; a trace naming a column twice
# is refused; --config TOML is strict (an unquoted word, a repeated key) and a JSON key given twice
# is refused; --help of every command with --routing lists every routing; random link faults on
# indirect networks cut switch-to-switch links only. Refusals: exit 2, one line on
# stderr naming the parameter, and nothing written. Usage: io_tests.sh <rica>
set -u
RICA=${1:?path to rica}
fail=0
cases=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# bad <needle> <args...>: exit 2, one line on stderr starting "rica: error: " and containing needle.
bad() {
  local needle=$1; shift
  cases=$((cases + 1))
  local err got
  err=$(timeout 60 "$RICA" "$@" 2>&1 >/dev/null); got=$?
  if [ "$got" != 2 ]; then echo "FAIL: rica $* -> exit $got, want 2"; printf '%s\n' "$err" | head -3; fail=1; return; fi
  local lines; lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$lines" != 1 ]; then echo "FAIL: rica $* -> $lines lines on stderr, want 1:"; printf '%s\n' "$err"; fail=1; return; fi
  case "$err" in "rica: error: "*"$needle"*) ;; *) echo "FAIL: rica $* -> '$err' (want 'rica: error: ...$needle...')"; fail=1;; esac
}
# good <args...>: exit 0.
good() {
  cases=$((cases + 1))
  local err; err=$(timeout 120 "$RICA" "$@" 2>&1 >/dev/null) || { echo "FAIL: rica $* -> exit $?, want 0"; printf '%s\n' "$err" | head -3; fail=1; }
}
# absent <file...>: none of the files exists (a refused command wrote nothing).
absent() {
  for f in "$@"; do [ ! -e "$f" ] || { echo "FAIL: $f was written by a refused command"; fail=1; }; done
}

# ---- every planned output, derived names included, in the same-file check ----
run=(run torus:4x4 --engine cycle --cycles 200 --quiet)
bad "--csv (its .links.csv)" "${run[@]}" --csv a.csv --json a.links.csv
bad "--csv (its .links.csv)" "${run[@]}" --csv b.csv --trace b.links.csv
bad "--csv (its .links.csv)" "${run[@]}" --csv c --json c.links.csv
bad "--telemetry (r.telemetry_windows.csv)" "${run[@]}" --csv r.csv --telemetry 50 --json r.telemetry_windows.csv
bad "--telemetry (q.telemetry_windows.csv)" "${run[@]}" --json q.json --telemetry 50 --trace q.telemetry_windows.csv
absent a.csv a.links.csv b.csv c c.links.csv r.csv r.telemetry_windows.csv q.json
# the spellings: written beside, never over, the named files
good "${run[@]}" --csv a.csv --json a.csv.links.csv
good "${run[@]}" --csv r2.csv --telemetry 50 --json r2.json
for f in a.csv a.links.csv a.csv.links.csv r2.csv r2.links.csv r2.telemetry_windows.csv r2.json; do
  [ -s "$f" ] || { echo "FAIL: $f missing"; fail=1; }
done
bad "--csv (" app run reduce:rounds=1 -t torus:4x4 --csv k.csv --json "k.torus_4x4.csv" --quiet
# --config is an input: no output overwrites it
printf '{"topology": "torus:4x4", "engine": "cycle", "cycles": 100}\n' > cfg.json
bad "which this command reads" run --config cfg.json --json cfg.json --quiet
grep -q cycles cfg.json || { echo "FAIL: cfg.json was overwritten"; fail=1; }

# ---- rica report never overwrites its input ----
good run torus:4x4 --engine cycle --cycles 200 --quiet --json r.json --csv r.csv
cp r.json r.json.orig
bad "which this command reads" report r.json --out r.json
bad "which this command reads" report r.json --out r.csv
bad "which this command reads" report r.json --out r.links.csv
bad "which this command reads" report r.json --json r.json
cmp -s r.json r.json.orig || { echo "FAIL: report overwrote r.json"; fail=1; }
good sweep torus:4x4 --rates 0.1 --cycles 100 --no-plot --quiet --out sw
cp sw/sweep.csv sweep.orig
bad "which this command reads" report sw --out sw/sweep.csv
bad "which this command reads" report sw --out sw/sweep_mean.csv
cmp -s sw/sweep.csv sweep.orig || { echo "FAIL: report overwrote sw/sweep.csv"; fail=1; }

# ---- a UTF-8 byte order mark is accepted by every reader ----
bom=$'\xef\xbb\xbf'
printf '%s0 1\n1 2\n2 3\n3 0\n' "$bom" > ring_bom.txt
good topo file:ring_bom.txt --quiet
printf '%stime,src,dst\n0,0,1\n3,2,5\n' "$bom" > trace_bom.csv
good run torus:4x4 --engine cycle --traffic trace:trace_bom.csv --quiet
printf '%ssrc,dst,rate\n0,1,0.1\n' "$bom" > m_bom.csv
good run torus:4x4 --engine cycle --cycles 100 --traffic matrix:m_bom.csv --quiet
printf '%s1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1\n2 5 -1 10 4 -1 -1 4 20 -1 1 1 1 1 1 1 -1 -1\n' "$bom" > s_bom.swf
good os-stream torus:4x4 --jobs s_bom.swf --no-plot --quiet
printf '%s{"engine": "cycle", "cycles": 100}\n' "$bom" > bom.json
good run torus:4x4 --config bom.json --quiet
printf '%sengine = "cycle"\ncycles = 100\n' "$bom" > bom.toml
good run torus:4x4 --config bom.toml --quiet
printf '%slink 0 1\n' "$bom" > faults_bom.txt
good run torus:4x4 --engine cycle --cycles 100 --faults file:faults_bom.txt --quiet

# ---- a trace naming a column twice ----
printf 'time,src,dst,time\n0,0,1,5\n' > twice.csv
bad "twice" run torus:4x4 --engine cycle --traffic trace:twice.csv
printf 'time,src,dst,src\n0,0,1,2\n' > twice2.csv
bad "column 'src' twice" run torus:4x4 --engine cycle --traffic trace:twice2.csv

# ---- strict --config: TOML values, repeated keys ----
printf 'engine = cycle\n' > unquoted.toml
bad "'cycle' is not a TOML value" run torus:4x4 --config unquoted.toml
printf 'cycles = 100\ncycles = 200\n' > twice.toml
bad "key 'cycles' is given twice" run torus:4x4 --config twice.toml
printf '{"cycles": 100, "cycles": 200}\n' > twice.json
bad "key 'cycles' is given twice" run torus:4x4 --config twice.json
printf '{"buffer_words": 8, "buffer-words": 16}\n' > spelled.json
bad "are one option" run torus:4x4 --config spelled.json
printf 'rate = 0.1\n[run]\nx = 1\n' > section.toml
bad "sections are not accepted" run torus:4x4 --config section.toml
printf 'traffic = "uniform\n' > open.toml
bad "not closed" run torus:4x4 --config open.toml
printf 'rate = 0.1 0.2\n' > trailing.toml
bad "after the value" run torus:4x4 --config trailing.toml
printf '# a comment\nrates = "0.1,0.2"  # the grid\ncycles = 1_000\nquiet = true\n' > ok.toml
good sweep torus:4x4 --config ok.toml --no-plot --out swt

# ---- --help lists every routing (generated from the routing declarations) ----
for cmd in run os os-stream sweep route; do
  cases=$((cases + 1))
  h=$("$RICA" $cmd --help 2>&1)
  for r in deterministic adaptive valiant ugal-l ugal-g par; do
    printf '%s\n' "$h" | grep -q -- "$r" || { echo "FAIL: rica $cmd --help does not name routing '$r'"; fail=1; }
  done
done

# ---- random link faults on indirect networks: switch-to-switch links by default ----
for t in dragonfly:p=2,a=4,h=2 hyperx:4x4,T=2 slimfly:q=5 fattree:4; do
  for seed in 1 2 3; do
    good run "$t" --engine cycle --cycles 200 --faults links=3 --seed $seed --quiet
  done
done
bad "switch-to-switch" run fattree:2 --faults links=1000

echo "io_tests: $cases cases"
exit $fail
