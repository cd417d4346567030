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
# A misspelt subcommand or option: the nearest name is suggested (issue 27).
check_exit 2 "misspelt subcommand" rnu torus:4x4
expect_in "unknown subcommand 'rnu' of 'rica'; did you mean 'run'?" "misspelt subcommand suggests run" rnu torus:4x4
check_exit 2 "misspelt option" run torus:4x4 --engien cycle
expect_in "unknown option '--engien' of 'rica run'; did you mean '--engine'? (rica run --help)" "misspelt option suggests --engine" run torus:4x4 --engien cycle
expect_in "unknown option '--rat' of 'rica run'; did you mean '--rate'?" "misspelt option with a value" run torus:4x4 --rat=0.1
check_exit 0 "topo default" topo
check_exit 0 "topo json" topo cccb:n=3 --json -
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
check_exit 2 "comega S below n" topo comega:n=7,S=5
check_exit 2 "cb2 X above n" topo cb2:n=4,X=5
check_exit 2 "cccb freed parallel" topo mdce:B=1,C=1,n=4,X=3,freed=parallel
check_exit 2 "ubruijn bad route" topo ubruijn:4,route=left
expect_in "parameter 'S' = 5 is out of range [7, 64]" "comega names S" topo comega:n=7,S=5
expect_in "exact-product" "mesh exact at 512K PEs" topo mesh:1024x512
expect_in "D  diameter     1534" "mesh diameter exact" topo mesh:1024x512
expect_in "\"method_detail\":" "json method_detail" topo "product:(torus:4x4)*(debruijn:3)" --json -
expect_in "comega" "list documents comega" list
expect_in "dilation        1" "embed ring in de Bruijn" embed ring debruijn:6 --oriented
expect_in "\"congestion\": 2" "embed tree in shuffle-exchange" embed tree shuffle:6 --json -
check_exit 2 "embed unknown guest" embed star debruijn:4
check_exit 2 "embed map misfit" embed ring torus:3x3 --map debruijn
check_exit 2 "embed bad map" embed ring debruijn:4 --map best
expect_in "dilation        1" "embed mesh in a hypercube (Gray product)" embed mesh hypercube:6
expect_in "guest nodes moved to the next live PE" "embed under faults" embed ring ubruijn:6 --faults nodes=2 --seed 3
expect_in "\"moved\": 2" "embed under faults, JSON" embed ring ubruijn:6 --faults nodes=2 --seed 3 --json -
# --map search (exact, bounded) and --every-fault; --map product
expect_in "search          found" "embed search" embed ring:26 ubruijn:5 --faults nodes=1 --map search
expect_in "none exists" "embed search proves none" embed ring:32 ubruijn:5 --faults nodes=1 --map search
expect_in "gave up after 3 steps" "embed search budget" embed ring:31 ubruijn:5 --faults links=1 --map search --search-budget 3
expect_in "placement found for 32" "embed every fault" embed tree:3 ubruijn:5 --faults nodes=1 --map search --every-fault
expect_in "\"dilation\": null" "embed search without a placement: null figures" embed ring:32 ubruijn:5 --faults nodes=1 --map search --json -
expect_in "dilation        1" "embed mesh on a product" embed mesh "product:(ubruijn:4)*(ubruijn:4)" --map product
check_exit 2 "embed every fault without search" embed ring:31 ubruijn:5 --faults links=1 --every-fault
check_exit 2 "embed every fault, two faults" embed ring:31 ubruijn:5 --faults links=2 --map search --every-fault
check_exit 2 "embed every fault, no faults" embed ring:31 ubruijn:5 --map search --every-fault
check_exit 2 "embed search budget 0" embed ring ubruijn:5 --map search --search-budget 0
check_exit 2 "embed product map on a non-product" embed mesh ubruijn:6 --map product
expect_in "freed" "list documents freed" list
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
  expect_in "\"$key\":" "json key $key" topo torus:4x4 --json -
done
expect_in "(0,0,0) --port" "route prints labels" route cccb:n=4 0 1023
expect_in "(3,15,15)" "route reaches the destination label" route cccb:n=4 "(0,0,0)" "(3,15,15)"
expect_in "digraph" "dot" topo torus:3x3 --dot -
expect_in "cccb" "list documents entries" list
tmp=$(mktemp); printf 'nodes 4\n0 1\n1 2\n2 3\n3 0\n' > "$tmp"
expect_in "\"diameter\": 2" "file topology" topo "file:$tmp" --json -
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
for pat in uniform quarter partition:parts=16 hotspot mesh localized transpose bitcomp bitrev shuffle tornado neighbor randperm; do
  check_exit 0 "pattern $pat" run cccb:n=4 --traffic $pat --packets 8 --quiet
done
# ---- cycle engine ----
check_exit 0 "cycle engine" run cccb:n=3 --engine cycle --rate 0.1 --cycles 300 --quiet
expect_in "cycles (generation to delivery)" "cycle engine latency unit" run torus:4x4 --engine cycle --rate 0.1 --cycles 200 --quiet
check_exit 2 "bad link cycles" run torus:4x4 --engine cycle --link-cycles fast
check_exit 2 "warmup beyond window" run torus:4x4 --engine cycle --cycles 100 --warmup 100
t1=$(mktemp); t2=$(mktemp)
"$RICA" run torus:8x8 --engine cycle --traffic hotspot --rate 0.3 --cycles 500 --threads 1 --quiet --trace "$t1" > /dev/null
"$RICA" run torus:8x8 --engine cycle --traffic hotspot --rate 0.3 --cycles 500 --threads 2 --quiet --trace "$t2" > /dev/null
cmp -s "$t1" "$t2" || { echo "FAIL [cycle trace differs between 1 and 2 threads]"; fail=1; }
rm -f "$t1" "$t2"
# ---- the echo line of rica run reproduces the run (issue 10) ----
echo_line=$("$RICA" run torus:4x4 --engine cycle --rate 0.2 --cycles 300 --link-cycles 2 --timing saf --arbitration oldest --threads 1 2>&1 >/dev/null | head -1)
for want in "--engine cycle" "--cycles 300" "--link-cycles 2" "--timing saf" "--arbitration oldest" "--threads 1"; do
  case "$echo_line" in *"$want"*) ;; *) echo "FAIL [run echo lacks '$want']: $echo_line"; fail=1;; esac
done
# shellcheck disable=SC2086
r1=$("$RICA" run torus:4x4 --engine cycle --rate 0.2 --cycles 300 --link-cycles 2 --timing saf --arbitration oldest --threads 1 --quiet | grep -E '^(packets|latency|virtual)')
# shellcheck disable=SC2086
r2=$("$RICA" ${echo_line#rica } --quiet | grep -E '^(packets|latency|virtual)')
[ -n "$r1" ] && [ "$r1" = "$r2" ] || { echo "FAIL [re-running the echo line gives another run]"; echo "$r1"; echo "$r2"; fail=1; }
app_echo=$("$RICA" run torus:4x4 --app reduce:rounds=2 2>&1 >/dev/null | head -1)
case "$app_echo" in *"--app reduce:rounds=2"*) ;; *) echo "FAIL [--app echo]: $app_echo"; fail=1;; esac
case "$app_echo" in *"--traffic"*|*"--cycles"*) echo "FAIL [--app async echo has traffic or cycle options]: $app_echo"; fail=1;; esac
expect_in '"timing": "saf"' "run json records timing" run torus:4x4 --engine cycle --timing saf --cycles 100 --rate 0.1 --quiet --json /dev/stdout
# ---- sweep ----
sw=$(mktemp -d)
"$RICA" sweep torus:4x4 cccb:n=2 --rates 0.05,0.1,0.2 --cycles 300 --out "$sw" --no-plot > /dev/null 2>&1 || { echo "FAIL [sweep]"; fail=1; }
head -1 "$sw/sweep.csv" | grep -q "^topology,traffic,offered,generated,accepted,delivered,latency_mean,latency_p99,hops_mean,cycles,warmup,link_cycles" || { echo "FAIL [sweep csv header]"; fail=1; }
[ "$(tail -n +2 "$sw/sweep.csv" | wc -l)" = 6 ] || { echo "FAIL [sweep rows]"; fail=1; }
rm -rf "$sw"
check_exit 2 "sweep bad rates" sweep torus:4x4 --rates 0.5:0.1:0.1 --no-plot
check_exit 2 "sweep impossible pattern" sweep mesh:5x5 --traffic bitrev --no-plot
expect_in "uniform" "list shows traffic patterns" list
expect_in "reduce" "list shows applications" list
expect_in "result        verified" "app reduce" run cccb:n=3 --app reduce:rounds=3 --quiet
check_exit 2 "unknown app" run torus:4x4 --app nosuch
check_exit 2 "bad app parameter" run torus:4x4 --app reduce:rounds=0
# ---- rica partition ----
check_exit 0 "partition c-Banyan" partition cbanyan:n=3 --parts 4
check_exit 0 "partition cccb dims" partition cccb:n=4 --dims 2:1,1:1
check_exit 0 "partition open torus block" partition torus:8x8 --cut 0=5
check_exit 0 "partition search" partition omega:4 --parts 2 --pairs sample
check_exit 2 "partition K not a power of two" partition cbanyan:n=3 --parts 3
check_exit 2 "partition K above PEs" partition mesh:4x4 --parts 17
check_exit 2 "partition K zero" partition mesh:4x4 --parts 0
check_exit 2 "partition no K" partition torus:4x4
check_exit 2 "partition ring dimension" partition cccb:n=3 --parts 2 --dims 0
check_exit 2 "partition dims disagree with K" partition cccb:n=3 --parts 2 --dims 1:2
check_exit 2 "partition malformed dims" partition cccb:n=3 --dims 1:x
check_exit 2 "partition cut on c-Banyan" partition cbanyan:n=3 --cut 1=2
check_exit 2 "partition cut outside" partition mesh:4x4 --cut 0=4
check_exit 2 "partition bad pairs" partition torus:4x4 --parts 2 --pairs most
check_exit 2 "partition unknown topology" partition nosuch:3 --parts 2
expect_in "2^k whole rings" "partition says what K is accepted" partition cbanyan:n=3 --parts 3
expect_in "4 of 4 closed" "partition closed summary" partition cccb:n=4 --parts 4
expect_in "OPEN" "partition names open partitions" partition torus:8x8 --cut 0=5
expect_in "exact-symmetry" "partition method" partition cbanyan:n=7,S=8 --parts 8
for key in topology rule method parts all_closed partitions pes closed leaving_pairs outside_examples; do
  expect_in "\"$key\":" "partition json key $key" partition omega:4 --parts 2 --json -
done
[ "$("$RICA" partition cb2:n=3 --parts 4 --json - | grep -c '"closed": true')" = 4 ] || { echo "FAIL [partition json closed flags]"; fail=1; }
[ "$("$RICA" partition torus:8x8 --cut 0=5 --json - | grep -c '"closed": false')" = 1 ] || { echo "FAIL [partition json open flag]"; fail=1; }
# ---- rica os ----
check_exit 0 "os drain and flush" os cbanyan:n=3 --rate 0.05 --slice 50 --packets 20 --no-plot --quiet
check_exit 0 "os in a partition" os cccb:n=2 --parts 2 --rate 0.05 --slice 40 --packets 10 --policy drain --quiet
# Issue 28: drain-pe with slices shorter than a trip through an indirect network livelocks; that is
# exit 3 with the livelock's evidence, not "internal error" (exit 1).
check_exit 3 "os drain-pe livelock is exit 3" os omega:4 --policy drain-pe --slice 5 --rate 1 --packets 60 --no-plot --quiet
expect_in "drain-pe at rate 1, slice 5: livelock: packets keep moving" "os livelock names the run and the evidence" \
  os omega:4 --policy drain-pe --slice 5 --rate 1 --packets 60 --no-plot --quiet
# Issue 28: a packet after more than the livelock guard's 200,000 quiet cycles is no livelock.
gap_trace=$(mktemp); printf 'time,src,dst,words\n0,0,1,3\n270000,2,3,3\n' > "$gap_trace"
check_exit 0 "trace with a 270,000-cycle gap" run torus:4x4 --engine cycle --traffic "trace:$gap_trace" --quiet
expect_in "idle, jumped over" "the idle stretch is jumped over" run torus:4x4 --engine cycle --traffic "trace:$gap_trace"
rm -f "$gap_trace"
check_exit 0 "bursts with off periods past the guard" run torus:2x2 --engine cycle --burst 1:600000 --rate 1 --cycles 3000000 --quiet
check_exit 2 "os one job" os torus:4x4 --job uniform --packets 5
check_exit 2 "os unknown policy" os torus:4x4 --policy sweep --packets 5
check_exit 2 "os rate out of range" os torus:4x4 --rate 1.5 --packets 5
check_exit 2 "os slice zero" os torus:4x4 --slice 0 --packets 5
check_exit 2 "os bad partition count" os cbanyan:n=3 --parts 3 --packets 5
check_exit 2 "os unknown job" os torus:4x4 --job uniform --job nosuch --packets 5
check_exit 2 "os partition index" os cbanyan:n=3 --parts 2 --partition 5 --packets 5
osj=$(mktemp)
"$RICA" os torus:4x4 --rate 0.1 --slice 30 --packets 20 --quiet --json "$osj" >/dev/null || { echo "FAIL [os json run]"; fail=1; }
for key in policies drain flush switches lost duplicates misdelivered switch_cycles_mean detect_cycles_mean runs; do
  grep -q "\"$key\":" "$osj" || { echo "FAIL [os json key $key]"; fail=1; }
done
rm -f "$osj"
# ---- rica app (application kernels: apps/sort, apps/stencil) ----
check_exit 0 "app sort" app sort -t torus:4x4 -t hypercube:4 --keys 101 --quiet
check_exit 0 "app sort shear cycle" app sort -t torus:4x4 --algorithm shear --keys 37 --engine cycle --quiet
check_exit 0 "app stencil" app stencil -t torus8:4 -t debruijn:4 --grid 13x9 --points 9 --iterations 3 --map embed --quiet
expect_in "result: every run verified" "app comparison table" app stencil -t torus:4x4 -t cccb:n=2 --grid 16x16 --iterations 2 --quiet
expect_in "result: every run verified" "app run: any registered app" app run reduce:rounds=2 -t torus:4x4 -t omega:4 --engine cycle
expect_in "gray" "app embed on a hypercube" app stencil -t hypercube:4 --grid 8x8 --map embed --iterations 1 --quiet
check_exit 2 "app zero keys" app sort -t torus:4x4 --keys 0
check_exit 2 "app unknown mapping" app sort -t torus:4x4 --map diagonal
check_exit 2 "app grid beyond memory" app stencil -t torus:32x32 --grid 200000x200000
check_exit 2 "app grid below process grid" app stencil -t torus:4x4 --grid 3x8
check_exit 2 "app unknown algorithm" app sort -t torus:4x4 --algorithm quick
check_exit 2 "app keys per packet" app sort -t torus:4x4 --keys-per-packet 4
check_exit 2 "app bad points" app stencil -t torus:4x4 --points 7
check_exit 2 "app bad boundary" app stencil -t torus:4x4 --boundary open
check_exit 2 "app pgrid mismatch" app stencil -t torus:4x4 --pgrid 3x3
check_exit 2 "app missing topology" app sort --keys 10
check_exit 2 "app unknown topology" app sort -t nosuch:3
check_exit 2 "app unreadable keys file" app sort -t torus:4x4 --keys-file /nonexistent/keys.txt
check_exit 2 "app unknown engine" app stencil -t torus:4x4 --engine warp
check_exit 2 "app sort option on stencil" app stencil -t torus:4x4 --keys 5
kf=$(mktemp); printf '9 3 7\n1 x\n' > "$kf"
check_exit 2 "app malformed keys file" app sort -t torus:4x4 --keys-file "$kf"
printf '9 3 7 4294967295\n0 1\n' > "$kf"
expect_in "result: every run verified" "app keys from a file" app sort -t torus:4x4 --keys-file "$kf" --algorithm sample --quiet
rm -f "$kf"
aj=$(mktemp); ac=$(mktemp --suffix=.csv)
"$RICA" app sort -t torus:4x4 -t cccb:n=2 --algorithm sample --keys 500 --quiet --json "$aj" --csv "$ac" > /dev/null \
  || { echo "FAIL [app json run]"; fail=1; }
for key in kernel config verified runs messages messages_per_pe_mean messages_per_pe_max hops_mean hop_histogram \
           latency_mean latency_p99 completion link_load_max map; do
  grep -q "\"$key\":" "$aj" || { echo "FAIL [app json key $key]"; fail=1; }
done
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if j['verified'] is True and len(j['runs'])==2 else 1)" "$aj" \
  || { echo "FAIL [app json verified/runs]"; fail=1; }
head -1 "$ac" | grep -q "^topology,pes,nodes,kernel,engine" || { echo "FAIL [app csv header]"; fail=1; }
[ "$(tail -n +2 "$ac" | wc -l)" = 2 ] || { echo "FAIL [app csv rows]"; fail=1; }
[ -s "${ac%.csv}.torus_4x4.csv" ] && [ -s "${ac%.csv}.torus_4x4.links.csv" ] || { echo "FAIL [app per-PE csv]"; fail=1; }
rm -f "$aj" "$ac" "${ac%.csv}".*.csv
c1=$("$RICA" app stencil -t torus:4x4 --grid 12x12 --engine cycle --threads 1 --quiet | grep -m1 '^torus')
c2=$("$RICA" app stencil -t torus:4x4 --grid 12x12 --engine cycle --threads 2 --quiet | grep -m1 '^torus')
[ "$c1" = "$c2" ] || { echo "FAIL [app cycle engine differs between 1 and 2 threads]"; echo "$c1"; echo "$c2"; fail=1; }
expect_in "result        verified" "run --app sort" run torus:4x4 --app sort:sample,keys=300,kpp=3 --quiet
expect_in "result        verified" "run --app stencil" run torus:4x4 --app stencil:grid=10x10,points=9 --quiet
check_exit 2 "run --app stencil too small" run torus:4x4 --app stencil:grid=2x2
# ---- experiment / bound ----
ex=$(mktemp -d)
exq=(experiment mdce-1024 --quick --networks CCCB,2DT --patterns uniform,hotspot,mesh --cycles 600 --no-plot)
"$RICA" "${exq[@]}" --jobs 1 --out "$ex/a" > /dev/null 2>&1 || { echo "FAIL [experiment quick]"; fail=1; }
for f in points.csv table.csv table.json table.md config.json; do
  [ -s "$ex/a/$f" ] || { echo "FAIL [experiment writes $f]"; fail=1; }
done
head -1 "$ex/a/points.csv" | grep -q "^network,pattern,topology,traffic,rate,offered,accepted,delivered,latency_mean" \
  || { echo "FAIL [experiment points header]"; fail=1; }
# 2 networks x (4 uniform + 4 hotspot + 4 paced-mesh rates and the closed loop)
[ "$(tail -n +2 "$ex/a/points.csv" | wc -l)" = 26 ] || { echo "FAIL [experiment points rows]"; fail=1; }
[ "$(tail -n +2 "$ex/a/table.csv" | wc -l)" = 6 ] || { echo "FAIL [experiment table rows]"; fail=1; }
grep -q "| CCCB | \`cccb:n=4\` |" "$ex/a/table.md" || { echo "FAIL [experiment table.md]"; fail=1; }
"$RICA" "${exq[@]}" --jobs 2 --out "$ex/b" > /dev/null 2>&1 || { echo "FAIL [experiment quick, 2 jobs]"; fail=1; }
cmp -s "$ex/a/points.csv" "$ex/b/points.csv" && cmp -s "$ex/a/table.csv" "$ex/b/table.csv" \
  || { echo "FAIL [experiment results depend on --jobs]"; fail=1; }
if /usr/bin/python3 -c "import matplotlib" 2> /dev/null; then
  "$RICA" experiment rwc1 --quick --networks CCCB --patterns uniform --cycles 400 --out "$ex/c" > /dev/null 2>&1 \
    && [ -s "$ex/c/uniform.png" ] && [ -s "$ex/c/uniform.svg" ] || { echo "FAIL [experiment figures]"; fail=1; }
fi
rm -rf "$ex"
expect_in "mdce-1024" "experiment list" experiment --list
check_exit 2 "experiment unknown" experiment mdce --out /tmp/rica-never
check_exit 2 "experiment no name" experiment
check_exit 2 "experiment bad out" experiment mdce-1024 --quick --out /dev/null/x
check_exit 2 "experiment bad network" experiment mdce-1024 --networks CCCB,XY
# issue 42: the kernels experiment (docs/apps.md §10): refusals, and one quick verified run
expect_in "kernels" "experiment list kernels" experiment --list
check_exit 2 "experiment kernels seeds" experiment kernels --quick --seeds 2 --out /tmp/rica-never
check_exit 2 "experiment kernels cycles" experiment kernels --quick --cycles 5 --out /tmp/rica-never
check_exit 2 "experiment kernels bad program" experiment kernels --quick --patterns ffx --out /tmp/rica-never
check_exit 2 "experiment kernels bad network" experiment kernels --quick --networks XY --out /tmp/rica-never
expect_in "| HC | 1024 |" "experiment kernels quick" experiment kernels --quick --networks HC --patterns matmul --out /tmp/rica-cli-kernels
check_exit 2 "app fft bad dims" run torus:4x4 --app fft:dims=12x8
check_exit 2 "app cg bad allreduce" run torus:4x4 --app cg:allreduce=tree
check_exit 2 "experiment pattern not in set-up" experiment rwc1 --patterns localized
expect_in "unknown experiment 'mdce'; valid: mdce-1024, rwc1, mdce-delta" "experiment lists names" experiment mdce
expect_in "exact-symmetry" "bound" bound torus:8x8 cccb:n=3
expect_in "0.05534" "bound torus 16x16" bound torus:16x16
check_exit 2 "bound bad link time" bound torus:4x4 --link-cycles fast
check_exit 2 "bound unknown traffic" bound torus:4x4 --traffic nosuch
check_exit 2 "bound impossible pattern" bound torus:4x2 --traffic mesh
# The router pipeline enters the zero-load latency only: H (1 + R) cycles over H 1-cycle links of
# one-word packets, H = 256/63 on torus:8x8 under uniform (self excluded): 4.06 at R = 0, 16.25 at 3.
expect_in " 4.06 " "bound zero-load R=0" bound torus:8x8 --link-cycles 1 --packet-words 1:0
expect_in " 16.25 " "bound zero-load R=3" bound torus:8x8 --link-cycles 1 --packet-words 1:0 --router-cycles 3
expect_in "0.78750" "bound unchanged by R" bound torus:8x8 --link-cycles 1 --packet-words 1:0 --router-cycles 3
check_exit 2 "bound router cycles out of range" bound torus:4x4 --router-cycles 65537

# Issue 28 item 5: a write into a closed pipe is an error (exit 2, one line) or SIGPIPE's death
# (141), never exit 0; the reader (true) is gone before the run ends. SIGPIPE default and ignored.
p28=$(mktemp -d)
rica=$(realpath "$RICA")  # run in $p28: a failing binary's stray files (a file called '-') land there
for out in "--trace -" "--json -"; do
  # shellcheck disable=SC2086
  st=$(cd "$p28" && set -o pipefail; "$rica" run torus:16x16 --packets 200 --quiet $out 2> "$p28/err" | true; echo "${PIPESTATUS[0]}")
  case "$st" in 141|2) ;; *) echo "FAIL [closed pipe, $out]: exit $st, want 2 or SIGPIPE (141)"; fail=1;; esac
  # shellcheck disable=SC2086
  st=$(cd "$p28" && trap '' PIPE; "$rica" run torus:16x16 --packets 200 --quiet $out 2> "$p28/err" | true; echo "${PIPESTATUS[0]}")
  [ "$st" = 2 ] && [ "$(grep -c . "$p28/err")" = 1 ] && grep -q "^rica: error: .*standard output" "$p28/err" \
    || { echo "FAIL [closed pipe, SIGPIPE ignored, $out]: exit $st: $(cat "$p28/err")"; fail=1; }
done
rm -f -- "$p28/-"
# --trace - is standard output (the CSV alone: no report beside it), never a file called "-".
(cd "$p28" && "$rica" run torus:4x4 --packets 2 --quiet --trace - > trace.csv 2> /dev/null) || { echo "FAIL [--trace -]"; fail=1; }
[ -e "$p28/-" ] && { echo "FAIL [--trace - wrote a file called '-']"; fail=1; }
head -1 "$p28/trace.csv" | grep -q "^src,dst,seq," && [ "$(wc -l < "$p28/trace.csv")" = 33 ] \
  || { echo "FAIL [--trace - holds the trace only]"; head -3 "$p28/trace.csv"; fail=1; }
"$RICA" run torus:4x4 --packets 2 --json - 2> /dev/null | python3 -c "import json,sys; json.load(sys.stdin)" \
  || { echo "FAIL [run --json - is JSON alone on standard output]"; fail=1; }

# Issue 28 item 6: rica plot on a malformed input is one line naming the file and what was expected.
printf 'not json\n' > "$p28/bad.json"
printf '{"a": 1}\n' > "$p28/other.json"
printf 'x,y\n1,2\n' > "$p28/bad.csv"
for c in "links $p28/bad.json" "links $p28/other.json" "sweep $p28/bad.csv" "os $p28/bad.csv" "sweep $p28/bad.json"; do
  # shellcheck disable=SC2086
  check_exit 2 "plot $c" plot $c --out "$p28/plots"
  # shellcheck disable=SC2086
  err=$("$RICA" plot $c --out "$p28/plots" 2>&1 >/dev/null)
  case "$err" in *"${c#* }"*"expected "*) ;; *) echo "FAIL [plot $c names the file and what it expected]: $err"; fail=1;; esac
  case "$err" in *Traceback*|*matplotlib*) echo "FAIL [plot $c: traceback or install hint]: $err"; fail=1;; esac
done
# Issue 30: --telemetry W (W cycles, or W >= 100 microseconds on the async engine): tidy CSVs beside
# --csv/--json, a JSON summary.
check_exit 2 "telemetry window below 100 us on the async engine" run torus:4x4 --telemetry 99
check_exit 2 "telemetry window 0" run torus:4x4 --engine cycle --telemetry 0
check_exit 2 "telemetry window not a number" run torus:4x4 --engine cycle --telemetry ten
check_exit 2 "telemetry window too large" run torus:4x4 --engine cycle --telemetry 9999999999
check_exit 2 "os telemetry without --out" os torus:4x4 --telemetry 100
expect_in "async engine" "telemetry refusal names the engine" run torus:4x4 --telemetry 10
# The async engine's windows (the world stopped at each window's end): they sum exactly to the run.
"$RICA" run torus:8x8 --rate 0.2 --packets 3000 --threads 2 --quiet --telemetry 100 --telemetry-links \
  --json "$p28/a.json" || { echo "FAIL [async run --telemetry]"; fail=1; }
python3 - "$p28" <<'PY' || { echo "FAIL [async telemetry windows sum to the run's totals]"; fail=1; }
import csv, json, sys
d = sys.argv[1]
j = json.load(open(f"{d}/a.json"))
w = list(csv.DictReader(open(f"{d}/a.telemetry_windows.csv")))
assert j["telemetry"]["time_unit"] == "ns" and j["telemetry"]["window"] == 100, j["telemetry"]
assert sum(int(r["delivered"]) for r in w) == j["delivered"], "delivered"
assert sum(int(r["injected"]) for r in w) == j["injected"], "injected"
assert sum(int(r["packet_hops"]) for r in w) == j["packet_hops"], "hops"
assert all(int(r["end"]) > int(r["begin"]) for r in w) and all(int(a["end"]) == int(b["begin"]) for a, b in zip(w, w[1:]))
links = list(csv.DictReader(open(f"{d}/a.telemetry_links.csv")))
assert sum(int(r["packets"]) for r in links) == j["packet_hops"], "link packets"
# Each stop of the world timed: at least one per window, a share of the run's wall time.
t = j["telemetry"]
assert t["links"] and t["stops"] >= t["windows"] and t["stopped_s"] > 0 and 0 < t["stopped_share"] < 1, t
PY
"$RICA" run torus:4x4 --engine cycle --cycles 2000 --rate 0.1 --quiet --telemetry 500 --json "$p28/t.json" \
  || { echo "FAIL [run --telemetry]"; fail=1; }
for f in windows classes; do
  [ -s "$p28/t.telemetry_$f.csv" ] || { echo "FAIL [run --telemetry wrote t.telemetry_$f.csv]"; fail=1; }
done
# The per-link table only when asked (--telemetry-links): it is most of a window's cost.
[ ! -e "$p28/t.telemetry_links.csv" ] || { echo "FAIL [per-link table written without --telemetry-links]"; fail=1; }
check_exit 2 "--telemetry-links without --telemetry" run torus:4x4 --engine cycle --telemetry-links
head -1 "$p28/t.telemetry_windows.csv" | grep -q "^window,begin,end,injected,delivered,measured," \
  || { echo "FAIL [telemetry windows header]"; fail=1; }
python3 - "$p28" <<'PY' || { echo "FAIL [telemetry windows sum to the run's totals]"; fail=1; }
import csv, json, sys
d = sys.argv[1]
j = json.load(open(f"{d}/t.json"))
w = list(csv.DictReader(open(f"{d}/t.telemetry_windows.csv")))
assert sum(int(r["delivered"]) for r in w) == j["delivered"], "delivered"
assert sum(int(r["packet_hops"]) for r in w) == j["packet_hops"], "hops"
assert j["telemetry"]["window"] == 500 and j["telemetry"]["windows"] == len(w), j["telemetry"]
assert j["telemetry"]["files"][0].endswith("t.telemetry_windows.csv")
assert "telemetry" not in j["config"], "an output, not configuration"
assert not j["telemetry"]["links"] and "links" not in j["telemetry"]["rows"], j["telemetry"]
PY
expect_in "telemetry     " "telemetry line in the report" run torus:4x4 --engine cycle --cycles 500 --telemetry 100
if python3 -c "import matplotlib" 2> /dev/null; then
  "$RICA" plot telemetry "$p28/t.telemetry_windows.csv" --out "$p28/plots" --quiet > /dev/null \
    && [ -s "$p28/plots/t.telemetry.png" ] && [ -s "$p28/plots/t.telemetry.svg" ] \
    || { echo "FAIL [rica plot telemetry]"; fail=1; }
  check_exit 2 "plot telemetry of a non-telemetry CSV" plot telemetry "$p28/bad.csv" --out "$p28/plots"
  # rica plot trace: the first packets of --trace-events as a trace viewer shows them.
  "$RICA" run torus:4x4 --engine cycle --cycles 300 --rate 0.1 --quiet --trace-events "$p28/tr.json" > /dev/null \
    && "$RICA" plot trace "$p28/tr.json" --quiet > /dev/null && [ -s "$p28/tr.trace.png" ] && [ -s "$p28/tr.trace.svg" ] \
    || { echo "FAIL [rica plot trace]"; fail=1; }
  check_exit 2 "plot trace of a run report (no traceEvents)" plot trace "$p28/t.json"
fi
"$RICA" os torus:4x4 --rate 0.05 --slice 400 --packets 20 --telemetry 200 --out "$p28/os" --no-plot --quiet \
  > /dev/null || { echo "FAIL [os --telemetry]"; fail=1; }
head -1 "$p28/os/telemetry_jobs.csv" | grep -q "^policy,rate,slice,window,end,job,pes,delivered" \
  && [ -s "$p28/os/telemetry_halts.csv" ] && [ -s "$p28/os/telemetry_windows.csv" ] \
  || { echo "FAIL [os --telemetry writes per-job and halt tables]"; fail=1; }
rm -rf "$p28"

# Issue 31: rica os-stream (job streams, allocators, schedulers; docs/os.md "Job streams")
p31=$(mktemp -d)
printf '1 0 -1 10 4 -1 -1 4 20 -1 1 1 1 1 1 1 -1 -1\n2 5 -1 x 4 -1 -1 4 20 -1 1 1 1 1 1 1 -1 -1\n' > "$p31/bad.swf"
check_exit 2 "os-stream: malformed SWF line" os-stream torus:4x4 --jobs "$p31/bad.swf"
expect_in "bad.swf:2: field 4 (run time)" "os-stream: SWF error names line and field" os-stream torus:4x4 --jobs "$p31/bad.swf"
check_exit 2 "os-stream: unknown allocator" os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1 --alloc budy
expect_in "did you mean 'buddy'?" "os-stream: nearest allocator" os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1 --alloc budy
check_exit 2 "os-stream: unknown scheduler" os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1 --sched fifo
check_exit 2 "os-stream: gang on open placement" os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1 --sched gang --alloc random
check_exit 2 "os-stream: job larger than the machine" os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=32,length=1
check_exit 2 "os-stream: bad poisson parameter" os-stream torus:4x4 --jobs poisson:jobs=2,rate=0,size=2,length=1
check_exit 2 "os-stream: missing SWF file" os-stream torus:4x4 --jobs "$p31/none.swf"
check_exit 2 "os-stream: cycles per second" os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1 --cycles-per-second 0
check_exit 2 "os-stream: more than 255 jobs resident at once" os-stream torus:32x32 --jobs poisson:jobs=300,rate=1000,size=2,length=100 --alloc first-fit --no-plot --out "$p31/r"
expect_in "would be the 256th job resident at once" "os-stream: resident limit in one line" os-stream torus:32x32 --jobs poisson:jobs=300,rate=1000,size=2,length=100 --alloc first-fit --no-plot --out "$p31/r"
[ ! -e "$p31/r/stream.csv" ] || { echo "FAIL [os-stream: a refused run writes no result]"; fail=1; }
check_exit 2 "os-stream: unknown app in a job mix" os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1 --job 'sortt@1;uniform@1'
expect_in "did you mean 'sort'?" "os-stream: nearest app in a job mix" os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1 --job 'sortt@1;uniform@1'
check_exit 2 "os-stream: --job-map on a poisson stream" os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1 --job-map 1=sort
"$RICA" os-stream torus:8x8 --jobs ../examples/os_stream/small.swf --job-map '1=sort;2=stencil;3=reduce' --cycles-per-second 2 \
  --no-plot --quiet --json "$p31/map.json" > /dev/null || { echo "FAIL [os-stream --job-map]"; fail=1; }
python3 -c "
import json,sys; r=json.load(open('$p31/map.json'))['runs'][0]
sys.exit(not (r['ok'] and sorted({j['app'] for j in r['jobs']}) == ['reduce','sort','stencil']))" \
  || { echo "FAIL [os-stream --job-map: jobs run their executables' applications]"; fail=1; }
expect_in "[40/40 jobs]" "os-stream: progress counts jobs over the runs" os-stream torus:4x4 --jobs poisson:jobs=20,rate=1,size=2:4,length=1 --sched fcfs,easy --cycles-per-second 10 --no-plot --progress
check_exit 2 "os-stream: unwritable --out" os-stream torus:4x4 --jobs poisson:jobs=2,rate=1,size=2,length=1 --out /proc/x
"$RICA" os-stream torus:8x8 --jobs ../examples/os_stream/small.swf --alloc buddy,first-fit --sched fcfs,easy,gang \
  --policy drain,flush --cycles-per-second 2 --rate 0.2 --slice 100 --out "$p31/o" --no-plot --quiet > /dev/null \
  || { echo "FAIL [os-stream on the example SWF]"; fail=1; }
for f in stream.csv jobs.csv switches.csv utilisation.csv stream.json; do
  [ -s "$p31/o/$f" ] || { echo "FAIL [os-stream wrote no $f]"; fail=1; }
done
[ "$(grep -c ',true$' "$p31/o/stream.csv")" = 8 ] || { echo "FAIL [os-stream: 8 runs, all ok]"; cat "$p31/o/stream.csv"; fail=1; }
python3 -c "
import json,sys; j=json.load(open('$p31/o/stream.json'))
r=j['runs']; sys.exit(not (len(r)==8 and all(x['lost']==0 and x['duplicates']==0 and x['ok'] for x in r)
  and all(len(x['jobs'])==23 for x in r) and any(x['switches']['count']>0 for x in r)))" \
  || { echo "FAIL [os-stream JSON: runs, jobs, switches]"; fail=1; }
if python3 -c "import matplotlib" 2> /dev/null; then
  python3 ../scripts/plot_os_stream.py "$p31/o" > /dev/null \
    && [ -s "$p31/o/utilisation.png" ] && [ -s "$p31/o/slowdown_cdf.svg" ] && [ -s "$p31/o/switch_cost.png" ] \
    && [ -s "$p31/o/gantt_buddy_gang_drain.png" ] || { echo "FAIL [plot_os_stream.py]"; fail=1; }
fi
rm -rf "$p31"
exit $fail
