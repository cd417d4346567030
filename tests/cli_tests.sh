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
exit $fail
