#!/usr/bin/env bash
# Ctrl-C (issue 27; rica/interrupt.hpp): SIGINT sent mid-run to the async engine and to the long
# analyses (partition, embed, bound, topo, experiment) stops each promptly with exit status 130,
# "rica: interrupted" on stderr, and no output file (experiment: no points.csv either).
# Usage: interrupt_tests.sh <rica>
set -u
RICA=${1:?path to rica}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
LIMIT_MS=${RICA_INTERRUPT_LIMIT_MS:-5000}  # a second when the host is quiet; slack for a loaded one

# interrupt NAME OUTPUT-FILE ARGS...: starts rica ARGS, sends SIGINT after 1.5 s, checks the rest.
interrupt() {
  local name=$1 out=$2; shift 2
  "$RICA" "$@" >"$tmp/$name.stdout" 2>"$tmp/$name.stderr" &
  local pid=$!
  sleep 1.5
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "FAIL [$name]: finished within 1.5 s; the test needs a longer run"; cat "$tmp/$name.stderr"; fail=1; return
  fi
  local t0; t0=$(date +%s%N)
  kill -INT "$pid"
  wait "$pid"; local status=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  [ "$status" = 130 ] || { echo "FAIL [$name]: exit $status, want 130"; cat "$tmp/$name.stderr"; fail=1; }
  grep -q '^rica: interrupted' "$tmp/$name.stderr" || { echo "FAIL [$name]: stderr:"; cat "$tmp/$name.stderr"; fail=1; }
  [ ! -e "$out" ] || { echo "FAIL [$name]: $out was written"; fail=1; }
  [ "$ms" -le "$LIMIT_MS" ] || { echo "FAIL [$name]: stopped after $ms ms (limit $LIMIT_MS)"; fail=1; }
  echo "$name: stopped $ms ms after SIGINT, exit $status"
}

interrupt async "$tmp/async.json" run torus:64x64 --engine async --rate 1 --packets 100000 --threads 2 \
  --json "$tmp/async.json" --quiet
interrupt cycle "$tmp/cycle.json" run torus:64x64 --engine cycle --rate 0.3 --cycles 2000000 --threads 1 \
  --json "$tmp/cycle.json" --quiet
interrupt bound "$tmp/bound.json" bound torus:128x128 --all-pairs --threads 2 --json "$tmp/bound.json"
interrupt partition "$tmp/partition.json" partition torus:256x256 --parts 4 --pairs all --threads 2 \
  --json "$tmp/partition.json"
interrupt topo "$tmp/topo.json" topo torus:128x128 --all-pairs --threads 2 --json "$tmp/topo.json"
interrupt embed "$tmp/embed.json" embed tree torus:2048x2048 --threads 2 --json "$tmp/embed.json"
interrupt experiment "$tmp/exp/points.csv" experiment mdce-delta --cycles 2000000 --threads 1 --jobs 1 --no-plot \
  --out "$tmp/exp" --json "$tmp/exp.json" --quiet
[ ! -e "$tmp/exp.json" ] || { echo "FAIL [experiment]: --json file was written"; fail=1; }

[ "$fail" = 0 ] && echo "interrupt tests passed"
exit "$fail"
