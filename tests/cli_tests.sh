#!/usr/bin/env bash
# CLI behaviour: exit statuses, one-line errors, JSON keys, route output. Usage: cli_tests.sh <rica>
set -u
RICA=${1:?path to rica}
fail=0
check_exit() {  # expected-status description args...
  local want=$1 what=$2; shift 2
  local err; err=$("$RICA" "$@" 2>&1 >/dev/null); local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL [$what]: rica $* -> exit $got, want $want"; echo "$err"; fail=1; return; fi
  if [ "$want" = 2 ]; then
    local lines; lines=$(printf '%s\n' "$err" | grep -c .)
    if [ "$lines" != 1 ]; then echo "FAIL [$what]: error is $lines lines, want 1:"; echo "$err"; fail=1; fi
    case "$err" in "rica: error: "*) ;; *) echo "FAIL [$what]: message '$err'"; fail=1;; esac
  fi
}
expect_in() {  # needle description args...
  local needle=$1 what=$2; shift 2
  local out; out=$("$RICA" "$@" 2>&1)
  case "$out" in *"$needle"*) ;; *) echo "FAIL [$what]: '$needle' not in output of rica $*"; echo "$out" | head -5; fail=1;; esac
}

check_exit 0 "list" list
check_exit 0 "topo default" topo
check_exit 0 "topo json" topo cccb:n=3 --json
check_exit 0 "route" route cccb:n=4 0 1023
check_exit 2 "unknown topology" topo nosuch:3
check_exit 2 "n out of range" topo hypercube:99
check_exit 2 "S below n" topo cbanyan:n=7,S=5
check_exit 2 "delta out of range" topo dce:n=4,delta=9
check_exit 2 "unknown parameter" topo dce:n=4,foo=1
check_exit 2 "not an integer" topo hypercube:ten
check_exit 2 "bad shape" topo mesh:32xx
check_exit 2 "mxx not multiple of 4" topo mxx:30
check_exit 2 "msn odd" topo msn:5x5
check_exit 2 "missing required" topo mdce:B=1,n=3
check_exit 2 "product of indirect" topo "product:omega:3*mesh:2x2"
check_exit 2 "product malformed" topo "product:mesh:2x2"
check_exit 2 "hier malformed" topo "hier:mesh:2x2"
check_exit 2 "unbalanced parens" topo "product:(mesh:2x2*mesh:2x2"
check_exit 2 "missing file" topo file:/nonexistent/net.txt
check_exit 2 "route bad node" route torus:4x4 0 99
check_exit 2 "route bad label" route torus:4x4 "(9,9)" 0
check_exit 2 "route switch as source" route omega:3 8 0
check_exit 2 "bad option" topo torus:4x4 --nosuch
check_exit 2 "no subcommand"
check_exit 2 "empty spec" topo ""
check_exit 2 "debruijn bad route" topo debruijn:4,route=table
check_exit 2 "too many nodes" topo torus:100000x100000

expect_in "unknown topology 'nosuch'; valid: cbanyan" "lists valid names" topo nosuch:3
expect_in "parameter 'S' = 5 is out of range [7, 64]" "names the parameter" topo cbanyan:n=7,S=5
for key in pes nodes links degree diameter mean_distance routed_diameter routed_mean_distance \
           mean_distance_incl_self routed_mean_distance_incl_self normalized_distance traffic_density \
           avg_relay max_relay fault_tolerance cost buffer_classes method; do
  expect_in "\"$key\":" "json key $key" topo torus:4x4 --json
done
expect_in "(0,0,0) --port" "route prints labels" route cccb:n=4 0 1023
expect_in "(3,15,15)" "route reaches the destination label" route cccb:n=4 "(0,0,0)" "(3,15,15)"
expect_in "digraph" "dot" topo torus:3x3 --dot -
expect_in "cccb" "list documents entries" list
tmp=$(mktemp); printf 'nodes 4\n0 1\n1 2\n2 3\n3 0\n' > "$tmp"
expect_in "\"diameter\": 2" "file topology" topo "file:$tmp" --json
printf 'nodes 4\n0 1\n1 x\n' > "$tmp"
check_exit 2 "malformed edge list" topo "file:$tmp"
rm -f "$tmp"

# ---- rica run ----
check_exit 0 "run small" run torus:4x4 --packets 5 --quiet
check_exit 2 "rate above 1" run torus:4x4 --rate 1.5
check_exit 2 "rate below 0" run torus:4x4 --rate -0.1
check_exit 2 "rate zero" run torus:4x4 --rate 0
check_exit 2 "unknown pattern" run torus:4x4 --traffic nosuch
check_exit 2 "power-of-two pattern on 25 PEs" run mesh:5x5 --traffic bitrev
check_exit 2 "square pattern on 8 PEs" run hypercube:3 --traffic mesh
check_exit 2 "bad packet words" run torus:4x4 --packet-words 3:x
check_exit 2 "packet longer than buffer" run torus:4x4 --packet-words 8:1 --buffer-words 4
check_exit 2 "bad threads" run torus:4x4 --threads 5000
check_exit 2 "unknown engine" run torus:4x4 --engine warp
check_exit 2 "bad block" run torus:4x4 --block 3
check_exit 3 "deliberate deadlock" run torus:16 --traffic tornado --no-classes --buffer-words 3 --packet-words 3:0 --packets 50 --quiet
expect_in "waiting cycle:" "deadlock report" run torus:16 --traffic tornado --no-classes --buffer-words 3 --packet-words 3:0 --packets 50 --quiet
json=$(mktemp); csv=$(mktemp --suffix=.csv)
"$RICA" run cccb:n=3 --traffic hotspot --packets 20 --threads 2 --quiet --json "$json" --csv "$csv" > /dev/null || { echo "FAIL [run json]"; fail=1; }
for key in topology pes threads seed engine injected delivered duplicates in_network hops_mean hops_max \
           latency_mean latency_p99 latency_unit packet_hops_per_s wall_s conservation_ok; do
  grep -q "\"$key\":" "$json" || { echo "FAIL [run json key $key]"; fail=1; }
done
grep -q '"conservation_ok": true' "$json" || { echo "FAIL [conservation in json]"; fail=1; }
head -1 "$csv" | grep -q "pe,label,injected,delivered,forwarded,blocked" || { echo "FAIL [per-PE csv]"; fail=1; }
head -1 "${csv%.csv}.links.csv" | grep -q "node,port,peer,packets" || { echo "FAIL [per-link csv]"; fail=1; }
rm -f "$json" "$csv" "${csv%.csv}.links.csv"
for pat in uniform quarter hotspot mesh localized transpose bitcomp bitrev shuffle tornado neighbor randperm; do
  check_exit 0 "pattern $pat" run cccb:n=4 --traffic $pat --packets 8 --quiet
done
# ---- cycle engine ----
check_exit 0 "cycle engine" run cccb:n=3 --engine cycle --rate 0.1 --cycles 300 --quiet
expect_in "latency (cycles)" "cycle engine latency unit" run torus:4x4 --engine cycle --rate 0.1 --cycles 200 --quiet
check_exit 2 "bad link cycles" run torus:4x4 --engine cycle --link-cycles fast
check_exit 2 "warmup beyond window" run torus:4x4 --engine cycle --cycles 100 --warmup 100
t1=$(mktemp); t2=$(mktemp)
"$RICA" run torus:8x8 --engine cycle --traffic hotspot --rate 0.3 --cycles 500 --threads 1 --quiet --trace "$t1" > /dev/null
"$RICA" run torus:8x8 --engine cycle --traffic hotspot --rate 0.3 --cycles 500 --threads 2 --quiet --trace "$t2" > /dev/null
cmp -s "$t1" "$t2" || { echo "FAIL [cycle trace differs between 1 and 2 threads]"; fail=1; }
rm -f "$t1" "$t2"
# ---- sweep ----
sw=$(mktemp -d)
"$RICA" sweep torus:4x4 cccb:n=2 --rates 0.05,0.1,0.2 --cycles 300 --out "$sw" --no-plot > /dev/null 2>&1 || { echo "FAIL [sweep]"; fail=1; }
head -1 "$sw/sweep.csv" | grep -q "^topology,traffic,offered,accepted,delivered,latency_mean,latency_p99,hops_mean" || { echo "FAIL [sweep csv header]"; fail=1; }
[ "$(tail -n +2 "$sw/sweep.csv" | wc -l)" = 6 ] || { echo "FAIL [sweep rows]"; fail=1; }
rm -rf "$sw"
check_exit 2 "sweep bad rates" sweep torus:4x4 --rates 0.5:0.1:0.1 --no-plot
check_exit 2 "sweep impossible pattern" sweep mesh:5x5 --traffic bitrev --no-plot
expect_in "uniform" "list shows traffic patterns" list
expect_in "reduce" "list shows applications" list
expect_in "result        verified" "app reduce" run cccb:n=3 --app reduce:rounds=3 --quiet
check_exit 2 "unknown app" run torus:4x4 --app nosuch
check_exit 2 "bad app parameter" run torus:4x4 --app reduce:rounds=0
exit $fail
