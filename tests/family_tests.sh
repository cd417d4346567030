#!/usr/bin/env bash
# A topology family from outside rica's files (tests/family_circulant.cpp, registered like a
# user's, with its traits) works in every subcommand that takes a topology, with no edit of rica:
# topo, route, run, partition, bound, embed — and its traits are used (orbits by the metrics and the
# channel load, its own partition rule), agreeing with the exhaustive methods.
# Usage: family_tests.sh RICA_CIRCULANT (the CLI built with the family: tests/circulant_main.cpp)
set -u
R=${1:?path to rica_circulant}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1" >&2; fail=1; }
# field FILE EXPR: a value from a JSON file (python3 expression over `d`).
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

S=circulant:n=16,s=3
"$R" list | grep -q "^  circulant " && ok "list shows the family" || bad "list lacks circulant"

# topo: exact by its orbit (one source), the same figures as all pairs.
if "$R" topo $S --quiet --json "$TMP/topo.json" && "$R" topo $S --quiet --all-pairs --json "$TMP/topo_all.json"; then
  m=$(field "$TMP/topo.json" 'd["method"]')
  [ "$m" = exact-symmetry ] && ok "topo uses the family's orbits ($m)" || bad "topo method '$m', expected exact-symmetry"
  for k in diameter mean_distance avg_relay max_relay; do
    a=$(field "$TMP/topo.json" "d['$k']"); b=$(field "$TMP/topo_all.json" "d['$k']")
    [ "$a" = "$b" ] && ok "topo $k = $a by orbit and by all pairs" || bad "topo $k: $a by orbit, $b by all pairs"
  done
  d=$(field "$TMP/topo.json" 'd["diameter"]')
  [ "$d" = 4 ] && ok "diameter of C_16(1,3) is 4 (8 = 3+3+1+1)" || bad "diameter $d, expected 4"
else
  bad "topo $S failed"
fi

# route: 0 -> 8 takes a shortest path, 4 hops.
out=$("$R" route $S 0 8) && echo "$out" | grep -q "4 hops" && ok "route 0 -> 8: 4 hops" || bad "route: $out"

# run: both engines deliver everything.
for e in cycle async; do
  if "$R" run $S --engine $e --rate 0.05 --packets 30 --quiet --json "$TMP/run_$e.json"; then
    c=$(field "$TMP/run_$e.json" 'd["conservation_ok"]')
    [ "$c" = True ] && ok "run --engine $e: conservation" || bad "run --engine $e: conservation $c"
  else
    bad "run $S --engine $e failed"
  fi
done

# partition: the family's own rule.
if "$R" partition $S --parts 4 --quiet --json "$TMP/part.json"; then
  rule=$(field "$TMP/part.json" 'd["rule"]')
  [ "$rule" = circulant-arcs ] && ok "partition uses the family's rule ($rule)" || bad "partition rule '$rule'"
else
  bad "partition $S failed"
fi
"$R" partition $S --dims 0:1 >/dev/null 2>"$TMP/err"; st=$?
[ $st = 2 ] && grep -q "a circulant has one dimension" "$TMP/err" && ok "the rule's refusal: exit 2, one line" ||
  bad "partition --dims: status $st, $(cat "$TMP/err")"

# bound: by symmetry (ports kept), equal to the walk over every source.
if "$R" bound $S --quiet --json "$TMP/b.json" && "$R" bound $S --quiet --all-pairs --json "$TMP/b_all.json"; then
  m=$(field "$TMP/b.json" 'd["bounds"][0]["method"]')
  [ "$m" = exact-symmetry ] && ok "bound uses the orbit ($m)" || bad "bound method '$m', expected exact-symmetry"
  for k in bound max_load mean_load mean_hops; do
    a=$(field "$TMP/b.json" "round(d['bounds'][0]['$k'], 12)"); b=$(field "$TMP/b_all.json" "round(d['bounds'][0]['$k'], 12)")
    [ "$a" = "$b" ] && ok "bound $k = $a by orbit and by all sources" || bad "bound $k: $a by orbit, $b by all sources"
  done
else
  bad "bound $S failed"
fi

# embed: a ring on its +1 links (--map auto: the family declares no embedding, so identity), dilation 1;
# a tree and a mesh embed too (by the generic placement).
if "$R" embed ring $S --map auto --quiet --json "$TMP/e.json"; then
  v=$(field "$TMP/e.json" '(d["map"], d["dilation"], d["congestion"], d["host"])')
  [ "$v" = "('identity', 1, 1, '$S')" ] && ok "embed ring: identity, dilation 1, congestion 1" || bad "embed ring: $v"
else
  bad "embed ring $S failed"
fi
for g in tree mesh; do
  "$R" embed $g $S --quiet --json "$TMP/e_$g.json" && [ "$(field "$TMP/e_$g.json" 'd["dilation"] >= 1')" = True ] &&
    ok "embed $g" || bad "embed $g $S failed"
done

# A bad parameter: one line, exit 2.
"$R" topo circulant:n=16,s=9 >/dev/null 2>"$TMP/err"; st=$?
[ $st = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && ok "s out of range: exit 2, one line" || bad "s=9: status $st"
exit $fail
