#!/usr/bin/env bash
# Bad input, every subcommand and every option kind (issue 11): each case must exit with status 2
# and print exactly one line on stderr, "rica: error: ...", naming the parameter (the needle).
# Nothing may hang: every call runs under a timeout. Usage: bad_input_tests.sh <rica>
set -u
RICA=${1:?path to rica}
fail=0
cases=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# bad <needle> <args...>: exit 2, one line on stderr starting "rica: error: " and containing needle.
bad() {
  local needle=$1; shift
  cases=$((cases + 1))
  local err got
  err=$(timeout 60 "$RICA" "$@" 2>&1 >/dev/null); got=$?
  if [ "$got" != 2 ]; then
    echo "FAIL: rica $* -> exit $got, want 2"; printf '%s\n' "$err" | head -3; fail=1; return
  fi
  local lines; lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$lines" != 1 ]; then echo "FAIL: rica $* -> $lines lines on stderr, want 1:"; printf '%s\n' "$err"; fail=1; return; fi
  case "$err" in "rica: error: "*) ;; *) echo "FAIL: rica $* -> '$err' does not start 'rica: error: '"; fail=1; return;; esac
  case "$err" in *"$needle"*) ;; *) echo "FAIL: rica $* -> '$err' does not name '$needle'"; fail=1;; esac
}
# bad_after_progress <needle> <args...>: as bad, for commands that print progress lines on stderr
# before the failure; the error is then the last line.
bad_after_progress() {
  local needle=$1; shift
  cases=$((cases + 1))
  local err got
  err=$(timeout 120 "$RICA" "$@" 2>&1 >/dev/null); got=$?
  local last; last=$(printf '%s\n' "$err" | tail -1)
  if [ "$got" != 2 ]; then echo "FAIL: rica $* -> exit $got, want 2"; printf '%s\n' "$err" | tail -3; fail=1; return; fi
  case "$last" in "rica: error: "*"$needle"*) ;; *) echo "FAIL: rica $* -> last line '$last'"; fail=1;; esac
}
# good <args...>: exit 0 (the accepted edge of a bound).
good() {
  cases=$((cases + 1))
  local err; err=$(timeout 120 "$RICA" "$@" 2>&1 >/dev/null) || { echo "FAIL: rica $* -> exit $?, want 0"; printf '%s\n' "$err" | head -3; fail=1; }
}

# ---- unsigned integers: negative, exponent, fraction, empty, above the bound, not a number ----
for v in -1 1e23 1.5 "" 1000000001 x 0x10 " 5" 18446744073709551616; do bad "--packets" run torus:4x4 --packets "$v"; done
for v in -1 -0 1e3 18446744073709551616 ""; do bad "--seed" run torus:4x4 --seed "$v"; done
good run torus:4x4 --seed 18446744073709551615 --packets 2 --quiet
for v in -1 1025 two; do bad "--threads" run torus:4x4 --threads "$v"; done
for v in 0 -4 65537; do bad "--buffer-words" run torus:4x4 --buffer-words "$v"; done
for v in 0 3 128 -1; do bad "--block" run torus:4x4 --block "$v"; done
for v in 0 -1 1048577; do bad "--batch" run torus:4x4 --batch "$v"; done
for v in 0 -1 2147483649 1e4; do bad "--cycles" run torus:4x4 --engine cycle --cycles "$v"; done
bad "--warmup" run torus:4x4 --engine cycle --warmup -1
bad "warmup" run torus:4x4 --engine cycle --cycles 100 --warmup 100
for v in 0 -1 1e3; do bad "--samples" topo torus:4x4 --samples "$v"; done
bad "--seed" topo torus:4x4 --seed -1
for v in 0 -1 67108865; do bad "--parts" partition torus:4x4 --parts "$v"; done
bad "--samples" partition torus:4x4 --parts 2 --samples -1
bad "--seed" partition torus:4x4 --parts 2 --seed -1
bad "--jobs" sweep torus:4x4 --jobs -1 --no-plot
bad "--jobs" experiment rwc1 --jobs 1025
bad "unknown application 'nosuch'" app run nosuch -t torus:4x4
bad "rounds" app run reduce:rounds=0 -t torus:4x4
bad "nothing after ':'" run torus:4x4 --app reduce:
bad "source" run torus:4x4 --app broadcast:source=16
bad "rule" run torus:4x4 --app broadcast:rule=star
bad_after_progress "whole machine" os cccb:n=2 --parts 2 --job broadcast --job uniform --out "$tmp/os"
bad "8,192 PEs" run omega:14 --app broadcast
bad "wrap" run torus:4x4 --traffic mesh:wrap=2
bad "wrap" sweep torus:4x4 --traffic mesh:wrap=yes --no-plot
bad "square" run hypercube:3 --traffic mesh:wrap=0
bad "double-tree" embed double-tree:0 ubruijn:4
bad "double tree of height at most 2" embed double-tree:3 ubruijn:4
bad "shuffle-exchange" embed shuffle-exchange:1 ubruijn:4
bad "each side at least 3" embed torus:2x8 hypercube:4
bad "an embedding is static" embed ring ubruijn:4 --faults links=1,at=10
bad "--faults" embed ring ubruijn:4 --faults links=-1
bad "exactly 16 nodes" embed shuffle-exchange:3 ubruijn:4 --map debruijn
bad "--map" app run reduce --map embed -t torus:4x4
bad "--keys" app sort -t torus:4x4 --keys -1
bad "--keys" app sort -t torus:4x4 --keys 4294967296
bad "--keys-per-packet" app sort -t torus:4x4 --keys-per-packet -1
bad "--samples" app sort -t torus:4x4 --samples 0
bad "--iterations" app stencil -t torus:4x4 --iterations -1
bad "--iterations" app stencil -t torus:4x4 --iterations 0
bad "--values-per-packet" app stencil -t torus:4x4 --values-per-packet 3
bad "--points" app stencil -t torus:4x4 --points -5
bad "--slice" os torus:4x4 --slice -1
bad "--slice" os torus:4x4 --slice 1073741825
bad "--packets" os torus:4x4 --packets 0
bad "--partition" os torus:4x4 --partition -1
bad "--io-hop-cycles" os torus:4x4 --io-hop-cycles 0
bad "--save-rate" os torus:4x4 --save-rate -2
bad "--cycles" experiment rwc1 --cycles 0
bad "--threads" experiment rwc1 --threads -1
bad "--seed" experiment rwc1 --seed -1

# ---- rates: zero, above 1, not finite, empty elements, oversized grids --------------------------
for v in 0 -0.1 1.01 nan inf "" 1e400 0.5x; do bad "--rate" run torus:4x4 --rate "$v"; done
for v in "0.1,,0.2" "" "," "0.1," "0.1:0.2" "0.1:0.2:0.1:0.3" "0.2:0.1:0.1" "0.0001:1:0.0001" "0:0.1:0.01"; do
  bad "--rate" sweep torus:4x4 --rate "$v" --no-plot
  bad "--rate" sweep torus:4x4 --rates "$v" --no-plot  # the documented alias
done
bad "--rate" os torus:4x4 --rate "0.1,,0.2"
# issue 11 item 7: the whole footprint against the memory this process may use (ulimit -v)
# Not in a sanitizer build: ASan and TSan reserve terabytes of address space for their shadow
# memory at start-up, so no process of theirs runs under ulimit -v.
if ldd "$RICA" 2>/dev/null | grep -q 'lib[at]san\.so'; then
  echo "bad_input_tests: the memory guard under ulimit -v is skipped (sanitizer build)"
else
  cases=$((cases + 1))
  err=$( (ulimit -v 3000000; timeout 60 "$RICA" run torus:1024x1024 --packets 2 --quiet) 2>&1 >/dev/null); got=$?
  case "$got:$err" in "2:rica: error: memory: "*"GB are available"*) ;; *) echo "FAIL: memory guard under ulimit -v -> exit $got: $err"; fail=1;; esac
fi
# issue 11 item 8: the async engine never finished at tiny rates (a probability per activation)
bad "--rate" run torus:4x4 --rate 1e-9 --packets 5
bad "--timing" run torus:4x4 --engine cycle --timing wormhole
bad "--arbitration" run torus:4x4 --engine cycle --arbitration lifo
bad "--policy" os torus:4x4 --policy drain-nowhere
# issue 13: --routing, one parser for every command that runs a machine; a routing the topology
# does not offer is refused before the run, naming the ones it offers
bad "--routing: unknown routing 'westfirst'" run torus:4x4 --routing westfirst
bad "--routing: unknown routing" run torus:4x4 --engine cycle --routing ADAPTIVE
bad "--routing: routing 'adaptive' is not offered by 'omega:n=3'; offered: deterministic" run omega:3 --routing adaptive
bad "--routing: routing 'adaptive' is not offered" run debruijn:4 --engine cycle --routing adaptive
bad "--routing: unknown routing" route torus:4x4 0 5 --routing minimal
bad "--routing: routing 'adaptive' is not offered" route mxx:16 0 5 --routing adaptive
bad "--routing: unknown routing" app run reduce -t torus:4x4 --routing x
bad "--routing: routing 'adaptive' is not offered" app run reduce -t omega:3 --routing adaptive
bad "--routing: unknown routing" os torus:4x4 --routing x
# issue 32: the dragonfly's valiant / ugal-l / ugal-g / par: offered by the dragonfly only; a short classes=K is
# refused with the cycle its certificate finds. --router-cycles: cycle engine only, 0..65536.
bad "--routing: routing 'valiant' is not offered by 'torus:4x4'" run torus:4x4 --routing valiant
bad "--routing: routing 'ugal-l' is not offered" route hyperx:4x4,T=2 0 5 --routing ugal-l
bad "classes=2: the routing can deadlock: a cycle of" run dragonfly:h=2,classes=2 --engine cycle --routing valiant
bad "classes=2: the routing can deadlock: a cycle of" route dragonfly:h=1,classes=2 0 5 --routing ugal-l
bad "--routing: routing 'ugal-g' is not offered" run slimfly:q=5 --routing ugal-g
bad "--routing: routing 'par' is not offered" run mesh:4x4 --routing par
bad "classes=2: the routing can deadlock: a cycle of" run dragonfly:h=2,classes=2 --engine cycle --routing ugal-g
bad "classes=2: the routing can deadlock: a cycle of" run dragonfly:h=2,classes=2 --engine cycle --routing par
bad "--router-cycles applies to the cycle engine only" run torus:4x4 --router-cycles 2
bad "--router-cycles applies to the cycle engine only" run torus:4x4 --router-cycles 0
for v in -1 x 65537; do bad "--router-cycles" run torus:4x4 --engine cycle --router-cycles "$v"; done
good run torus:4x4 --engine cycle --router-cycles 65536 --packets 2 --quiet
bad "--routing: unknown routing" sweep torus:4x4 --routing x --no-plot
good route torus:4x4 0 5 --routing adaptive
bad "--rate" os torus:4x4 --rate 0

# ---- one parser per concept: the same value is refused the same way by every subcommand -----------
for cmd in "run torus:4x4 --engine cycle" "sweep torus:4x4 --no-plot" "os torus:4x4" "app sort -t torus:4x4 --engine cycle" \
           "bound torus:4x4"; do
  # shellcheck disable=SC2086
  bad "--link-cycles" $cmd --link-cycles 0
  # shellcheck disable=SC2086
  bad "--link-cycles" $cmd --link-cycles fast
done
for cmd in "run torus:4x4" "sweep torus:4x4 --no-plot" "os torus:4x4" "app sort -t torus:4x4" "bound torus:4x4"; do
  # shellcheck disable=SC2086
  for v in 0 3:3 3:x x :1 3: 256 -3; do bad "--packet-words" $cmd --packet-words "$v"; done
done
for cmd in "run torus:4x4" "sweep torus:4x4 --no-plot" "os torus:4x4" "app sort -t torus:4x4" "experiment rwc1" \
           "topo torus:4x4" "partition torus:4x4 --parts 2"; do
  # shellcheck disable=SC2086
  bad "--seed" $cmd --seed -1
done
for cmd in "run torus:4x4" "sweep torus:4x4 --no-plot" "os torus:4x4" "app stencil -t torus:4x4"; do
  # shellcheck disable=SC2086
  bad "--threads" $cmd --threads 5000
  # shellcheck disable=SC2086
  bad "--buffer-words" $cmd --buffer-words 0
  # shellcheck disable=SC2086
  bad "--rank-split" $cmd --rank-split nosuch  # docs/distributed.md
done
# rica bound runs no machine: --rank-split is not its option, even with the default value (its
# request refuses a split from C++ and Python alike).
bad "unknown option '--rank-split' of 'rica bound'" bound torus:4x4 --rank-split blocks
bad "unknown option '--rank-split' of 'rica bound'" bound torus:4x4 --rank-split partition
# --telemetry-links is the table of --telemetry W: refused alone by run's and os's requests alike
# (os's --telemetry options are the option table's, as run's and demo's).
for cmd in "run torus:4x4 --packets 5" "os torus:4x4 --packets 5 --no-plot --out $tmp/ot"; do
  # shellcheck disable=SC2086
  bad "--telemetry-links: the per-link table of --telemetry W; give --telemetry W" $cmd --telemetry-links
done

# ---- engines: names, and options the chosen engine ignores -----------------------------------------
bad "--engine" run torus:4x4 --engine warp
bad "--engine" run torus:4x4 --engine ""
bad "--engine" app sort -t torus:4x4 --engine CYCLE
bad "--timing" run torus:4x4 --engine cycle --timing fast
bad "--arbitration" run torus:4x4 --engine cycle --arbitration lifo
for opt in "--cycles 100" "--warmup 1" "--link-cycles 2" "--timing saf" "--arbitration oldest"; do
  # shellcheck disable=SC2086
  bad "${opt% *}" run torus:4x4 $opt
done
bad "--link-cycles" app stencil -t torus:4x4 --engine async --link-cycles words  # rica app: cycle engine by default (issue 45)
bad "--timing" app sort -t torus:4x4 --engine async --timing saf
bad "--rate" run torus:4x4 --app reduce:rounds=2 --rate 0.5
bad "--packets" run torus:4x4 --app reduce:rounds=2 --packets 5
bad "--traffic" run torus:4x4 --app reduce:rounds=2 --traffic hotspot

# ---- names and texts: empty, unknown ----------------------------------------------------------------
bad "--job" os torus:4x4 --job ""
bad "--job" os torus:4x4 --job uniform
bad "--job: 'nosuch' is neither a traffic pattern" os torus:4x4 --job uniform --job nosuch
bad "--policy" os torus:4x4 --policy ""
bad "--policy" os torus:4x4 --policy "drain,,flush"
bad "--networks" experiment rwc1 --networks ""
bad "--networks" experiment rwc1 --networks "CCCB,"
bad "--patterns" experiment rwc1 --patterns ""
bad "--networks" experiment rwc1 --networks XY
bad "--traffic" run torus:4x4 --traffic ""
bad "--app" run torus:4x4 --app ""
bad "--map" app sort -t torus:4x4 --map ""
bad "--algorithm" app sort -t torus:4x4 --algorithm ""
bad "--grid" app stencil -t torus:4x4 --grid ""
bad "--topology" app sort -t ""
bad "topology spec" topo ""
bad "topology" run ""
bad "experiment <name>" experiment ""
bad "--dims" os cccb:n=2 --parts 2 --dims ""

# ---- topology specs: what the types cannot hold -------------------------------------------------------
nested='hier:(mesh:2x2)/(mesh:2)'
for _ in $(seq 1 16); do nested="hier:($nested)/(mesh:2)"; done
bad "buffer classes" topo "$nested"
bad "buffer classes" route "$nested" 0 1
bad "buffer classes" run "$nested" --packets 1
bad "topology spec of" topo "product:$(printf 'mesh:2x2*%.0s' $(seq 1 800))mesh:2x2"
bad "nodes" topo "product:torus:8192x8192*torus:4x4"
bad "unbalanced" topo "hier:(mesh:2x2/mesh:2"

# ---- files read: devices, FIFOs, directories, oversized lines, missing ------------------------------
mkfifo "$tmp/fifo"
for f in /dev/zero "$tmp/fifo" "$tmp" /nonexistent/x; do
  bad "file:$f" topo "file:$f"
  bad "--keys-file" app sort -t torus:4x4 --keys-file "$f"
  bad "'$f'" run torus:4x4 --app "sort:file=$f"
done
head -c 5000 /dev/zero | tr '\0' '1' > "$tmp/longline"
bad "longer than" topo "file:$tmp/longline"
printf 'nodes 4\n0 1\n1 x\n' > "$tmp/bad.txt"
bad "$tmp/bad.txt:3" topo "file:$tmp/bad.txt"
printf '1 2 -3\n' > "$tmp/keys"
bad "--keys-file" app sort -t torus:4x4 --keys-file "$tmp/keys"

# ---- files written: empty names, directories, missing directories, full devices -----------------------
# A missing directory is created (issue 45); one that cannot be (under a regular file) is refused.
: > "$tmp/afile"
for opt in --json --csv --trace; do
  bad "$opt" run torus:4x4 --packets 2 "$opt" ""
  bad "$opt" run torus:4x4 --packets 2 "$opt" "$tmp"
  bad "$opt" run torus:4x4 --packets 2 "$opt" "$tmp/afile/dir/out"
done
bad "--json" run torus:4x4 --packets 2 --quiet --json /dev/full
bad "--csv" run torus:4x4 --packets 2 --quiet --csv /dev/full
bad "--trace" run torus:4x4 --packets 2 --quiet --trace /dev/full
bad "--json" app sort -t torus:4x4 --keys 20 --quiet --json /dev/full
bad "--csv" app sort -t torus:4x4 --keys 20 --quiet --csv /dev/full
bad "--json" app sort -t torus:4x4 --keys 20 --json ""
bad "--dot" topo torus:3x3 --dot /dev/full
bad "--dot" topo torus:3x3 --dot ""
bad "--json" bound torus:4x4 --json /dev/full
bad "--json" os torus:4x4 --json ""
# Standard output on a full device (the report itself).
cases=$((cases + 1))
err=$(timeout 60 "$RICA" list 2>&1 >/dev/full); got=$?
[ "$got" = 2 ] && [ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && case "$err" in *"standard output"*) true;; *) false;; esac \
  || { echo "FAIL: rica list > /dev/full -> exit $got: $err"; fail=1; }
for cmd in "sweep torus:4x4 --no-plot" "os torus:4x4 --no-plot" "experiment rwc1 --no-plot"; do
  # shellcheck disable=SC2086
  bad "--out" $cmd --out ""
  # shellcheck disable=SC2086
  bad "--out" $cmd --out /dev/null
  # shellcheck disable=SC2086
  bad "--out" $cmd --out /dev/null/sub
done
# An output that cannot be written is found before the run (a directory where a file goes).
mkdir -p "$tmp/blocked-exp/table.md" "$tmp/blocked-os/os.json" "$tmp/blocked-sweep/sweep.csv"
bad "table.md" experiment rwc1 --quick --networks CCCB --patterns uniform --cycles 100 --no-plot --out "$tmp/blocked-exp"
bad "os.json" os torus:4x4 --rate 0.1 --slice 30 --packets 5 --no-plot --quiet --out "$tmp/blocked-os"
bad "sweep.csv" sweep torus:4x4 --rates 0.1 --cycles 50 --no-plot --out "$tmp/blocked-sweep"
# A report replaces an existing file whole (written beside it, then renamed): the old file is
# overwritten, no temporary is left behind, a symbolic link is written through and kept.
# The packet trace (--trace) likewise: a new file (another inode) renamed over the old one.
mkdir -p "$tmp/whole" && printf 'old\n' > "$tmp/whole/r.json" && ln -s r.json "$tmp/whole/link.json"
printf 'old\n' > "$tmp/whole/t.csv" && ln -s t.csv "$tmp/whole/tlink.csv"
inode=$(stat -c %i "$tmp/whole/t.csv")
cases=$((cases + 1))
if timeout 60 "$RICA" run torus:4x4 --packets 2 --quiet --json "$tmp/whole/r.json" --trace "$tmp/whole/t.csv" >/dev/null \
  && [ "$(stat -c %i "$tmp/whole/t.csv")" != "$inode" ] && [ "$(wc -l < "$tmp/whole/t.csv")" = 33 ] \
  && timeout 60 "$RICA" run torus:4x4 --packets 3 --quiet --json "$tmp/whole/link.json" --trace "$tmp/whole/tlink.csv" >/dev/null; then
  left=$(ls -A "$tmp/whole" | tr '\n' ' ')
  [ "$left" = "link.json r.json t.csv tlink.csv " ] && [ -L "$tmp/whole/link.json" ] && [ -L "$tmp/whole/tlink.csv" ] \
    && grep -q '"packets": 3' "$tmp/whole/r.json" && [ "$(wc -l < "$tmp/whole/t.csv")" = 49 ] \
    || { echo "FAIL: whole-file replacement: left '$left'"; fail=1; }
else
  echo "FAIL: whole-file replacement: run failed"; fail=1
fi
# Outputs on a full device: the files are links to /dev/full, so every write fails after the run.
mkdir -p "$tmp/full-sweep" "$tmp/full-os" "$tmp/full-exp"
ln -s /dev/full "$tmp/full-sweep/sweep.csv"
ln -s /dev/full "$tmp/full-os/os.csv"
ln -s /dev/full "$tmp/full-exp/table.md"
bad "--out" sweep torus:4x4 --rates 0.1 --cycles 50 --no-plot --out "$tmp/full-sweep"
bad "--out" os torus:4x4 --rate 0.1 --slice 30 --packets 5 --no-plot --quiet --out "$tmp/full-os"
bad_after_progress "--out" experiment rwc1 --quick --networks CCCB --patterns uniform --cycles 100 --no-plot --out "$tmp/full-exp"

# ---- every subcommand: unknown options and missing arguments --------------------------------------------
for cmd in list topo "route torus:4x4 0 1" "run torus:4x4" demo "sweep torus:4x4" "os torus:4x4" "bound torus:4x4" \
           "partition torus:4x4" experiment "app sort -t torus:4x4" "app stencil -t torus:4x4"; do
  # shellcheck disable=SC2086
  bad "--nosuch" $cmd --nosuch
done
bad "spec" route
bad "topology" sweep
bad "topology" bound
bad "topology" os
bad "--topology" app stencil

# ---- configuration files, source queue, bursts (issue 15) ----------------------------------------------
printf 'not json' > "$tmp/c1.json"; bad "--config" run --config "$tmp/c1.json"
printf '[1,2]' > "$tmp/c2.json"; bad "--config" run --config "$tmp/c2.json"
printf '{"nosuch": 1}' > "$tmp/c3.json"; bad "nosuch" run --config "$tmp/c3.json"
printf '{"topology": "torus:4x4", "quiet": 3}' > "$tmp/c4.json"; bad "quiet" run --config "$tmp/c4.json"
printf '{"topology": "torus:4x4", "rate": {"a": 1}}' > "$tmp/c5.json"; bad "rate" run --config "$tmp/c5.json"
printf '{"topology": "torus:4x4", "rate": 7}' > "$tmp/c6.json"; bad "--rate" run --config "$tmp/c6.json"
bad "--config" run torus:4x4 --config "$tmp/none.json"
printf '[run]\nrate = 0.1\n' > "$tmp/c7.toml"; bad "section" run torus:4x4 --config "$tmp/c7.toml"
bad "--config" topo torus:4x4 --config /dev/zero
bad "--config" run torus:4x4 --config
for v in -1 x 1048577; do bad "--source-queue" run torus:4x4 --engine cycle --source-queue "$v"; done
bad "--source-queue" run torus:4x4 --source-queue 0 --packets 2
bad "--source-queue" run torus:4x4 --app reduce --source-queue 2
for v in 0 1001 x; do bad "--seeds" run torus:4x4 --seeds "$v"; bad "--seeds" sweep torus:4x4 --seeds "$v"; done
for v in 5 0:5 5:0 x:2 "" 1:1:1; do bad "--burst" run torus:4x4 --engine cycle --burst "$v"; done

# ---- traffic files: matrix:FILE and trace:FILE (docs/traffic.md) ----------------------------------------
bad "traffic 'matrix:'" run torus:4x4 --traffic matrix:
bad "matrix:$tmp/none" run torus:4x4 --traffic "matrix:$tmp/none"
bad "matrix:/dev/zero" run torus:4x4 --traffic matrix:/dev/zero
: > "$tmp/m0"; bad "empty" run torus:2x2 --traffic "matrix:$tmp/m0"
printf '0 1\n1 0\n' > "$tmp/m1"; bad "2 rows" run torus:2x2 --traffic "matrix:$tmp/m1"
printf '0 .1 0 0\n0 0 .1\n0 0 0 0\n0 0 0 0\n' > "$tmp/m2"; bad "line 2: 3 values" run torus:2x2 --traffic "matrix:$tmp/m2"
printf '0.5 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n' > "$tmp/m3"; bad "diagonal" run torus:2x2 --traffic "matrix:$tmp/m3"
printf '0 0.6 0.6 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n' > "$tmp/m4"; bad "at most 1" run torus:2x2 --traffic "matrix:$tmp/m4"
printf '0 -1 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n' > "$tmp/m5"; bad "not a rate" run torus:2x2 --traffic "matrix:$tmp/m5"
printf '0 x 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n' > "$tmp/m6"; bad "not a rate" run torus:2x2 --traffic "matrix:$tmp/m6"
printf '0 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n' > "$tmp/m7"; bad "every rate is 0" run torus:2x2 --traffic "matrix:$tmp/m7"
printf 'src,dst,rate\n0,9,0.1\n' > "$tmp/m8"; bad "dst" run torus:2x2 --traffic "matrix:$tmp/m8"
printf 'src,dst,rate\n1,1,0.1\n' > "$tmp/m9"; bad "src = dst" run torus:2x2 --traffic "matrix:$tmp/m9"
printf 'src,dst,rate\n0,1\n' > "$tmp/m10"; bad "give src,dst,rate" run torus:2x2 --traffic "matrix:$tmp/m10"
bad "traffic 'trace:'" run torus:4x4 --traffic trace:
bad "trace:$tmp/none" run torus:4x4 --traffic "trace:$tmp/none"
: > "$tmp/t0"; bad "empty" run torus:2x2 --traffic "trace:$tmp/t0"
printf 'a,b,c\n' > "$tmp/t1"; bad "name the columns" run torus:2x2 --traffic "trace:$tmp/t1"
printf 'time,src,dst,words\n' > "$tmp/t2"; bad "no packets" run torus:2x2 --traffic "trace:$tmp/t2"
printf 'time,src,dst,words\n0,0,7,3\n' > "$tmp/t3"; bad "dst" run torus:2x2 --traffic "trace:$tmp/t3"
printf 'time,src,dst,words\n-1,0,1,3\n' > "$tmp/t4"; bad "time" run torus:2x2 --traffic "trace:$tmp/t4"
printf 'time,src,dst,words\n0,0,1,9\n' > "$tmp/t5"; bad "--packet-words" run torus:2x2 --traffic "trace:$tmp/t5"
printf 'time,src,dst,words\n0,0,1\n' > "$tmp/t6"; bad "3 fields" run torus:2x2 --traffic "trace:$tmp/t6"
printf 'time,src,dst,words\n0,2,2,3\n' > "$tmp/t7"; bad "src = dst" run torus:2x2 --traffic "trace:$tmp/t7"
printf 'time,src,dst\n0,"1,1\n' > "$tmp/t8"; bad "never closed" run torus:2x2 --traffic "trace:$tmp/t8"
bad "--json" topo torus:4x4 --json ""
# ---- faults (docs/faults.md) ----------------------------------------------------------------------------
bad "--faults" run torus:4x4 --faults ""
bad "--faults: links" run torus:4x4 --faults links=x
bad "unknown item 'foo=1'" run torus:4x4 --faults foo=1
bad "gives links= twice" run torus:4x4 --faults links=1,links=2
bad "at= needs something" run torus:4x4 --faults at=5 --engine cycle
bad "--faults: at" run torus:4x4 --faults links=1,at=0 --engine cycle
bad "--faults at=CYCLE applies to the cycle engine only" run torus:4x4 --faults links=1,at=10
bad "only 32 links" run torus:4x4 --faults links=33
bad "only 16 PEs" run torus:4x4 --faults nodes=17
bad "at least 2 must survive" run torus:4x4 --faults nodes=15
bad "file:$tmp/none" run torus:4x4 --faults "file:$tmp/none"
printf 'link 0 1\nlink 0 5\n' > "$tmp/f1"; bad "f1:2: field 3: there is no link" run torus:4x4 --faults "file:$tmp/f1"
printf 'node 99\n' > "$tmp/f2"; bad "f2:1: field 2" run torus:4x4 --faults "file:$tmp/f2"
printf 'edge 0 1\n' > "$tmp/f3"; bad "f3:1: field 1: unknown keyword 'edge'" run torus:4x4 --faults "file:$tmp/f3"
printf 'link 0\n' > "$tmp/f4"; bad "f4:1: 'link' takes two nodes" run torus:4x4 --faults "file:$tmp/f4"
printf 'link 0 1\nlink 0 4\nlink 0 3\nlink 0 12\n' > "$tmp/f5"; bad "cannot reach PE" run torus:4x4 --faults "file:$tmp/f5"
bad "--faults" app run reduce:rounds=2 -t torus:4x4 --faults nodes=x
bad "application kernel needs every PE" app run reduce:rounds=2 -t torus:4x4 --faults nodes=1
bad "routing 'adaptive' is not offered by 'file:data/directed_ring4.txt'; offered: deterministic" route file:data/directed_ring4.txt 0 2 --routing adaptive
bad "at=CYCLE with --routing adaptive" run torus:4x4 --engine cycle --faults links=1,at=10 --routing adaptive
bad "parameter 'route' = 'bogus' is not one of: minimal, paper" topo mxx:16,route=bogus
bad "route' = paper needs N <= 1024" topo mxx:2048,route=paper
# Today's low-diameter families (docs/topologies.md): parameters named; a short class count refused
# with the cycle the channel dependency check found.
bad "dragonfly: parameter 'h' = 0 is out of range [1, 1024]" topo dragonfly:h=0
bad "dragonfly: parameter 'arrangement' = 'palm' is not one of: absolute, relative" topo dragonfly:2,arrangement=palm
bad "dragonfly: parameter 'classes' = 3 is out of range [1, 2]" topo dragonfly:2,classes=3
bad "dragonfly: classes=1: the routing can deadlock: a cycle of" topo dragonfly:2,classes=1
bad "dragonfly: parameter 'classes' = 1 is below the 2 minimal routing needs" run dragonfly:8,classes=1
bad "hyperx: parameter 'shape[1]' = 1 is out of range [2, 4096]" topo hyperx:4x1
bad "hyperx: parameter 'T' = 0 is out of range [1, 4096]" run hyperx:4x4,T=0
bad "hyperx: parameter 'K' = 33 is out of range [1, 32]" topo hyperx:4x4,K=33
bad "slimfly: parameter 'q' = 6 must be a prime power 4w + d" topo slimfly:q=6
bad "slimfly: parameter 'q' = 103 is out of range [3, 101]" topo slimfly:103
bad "slimfly: parameter 'classes' = 0 is out of range [1, 2]" topo slimfly:5,classes=0
bad "slimfly: classes=1: the routing can deadlock: a cycle of" run slimfly:q=5,classes=1
good topo dragonfly:h=2,classes=2 --quiet
good topo slimfly:q=5,classes=2 --quiet
bad "--faults" os torus:4x4 --faults links=x
bad "its jobs need every PE" os torus:4x4 --faults nodes=1 --packets 5
bad "at=CYCLE does not apply to rica os" os torus:4x4 --faults links=1,at=10 --packets 5
bad "drop --parts/--dims or --faults" os cccb:n=2 --parts 2 --faults links=1 --packets 5
bad "--faults does not apply" experiment faults --faults links=1 --quick --no-plot --out "$tmp/ef"
bad "which --faults does not support" experiment adaptive --faults links=1 --quick --no-plot --out "$tmp/ea"
bad "mesh emulation needs every PE" experiment rwc1 --networks 2DT --patterns mesh --faults nodes=1 --quick --no-plot --out "$tmp/er"
bad "--faults: links" experiment mdce-1024 --faults links=x --quick --no-plot --out "$tmp/em"
bad "unknown pattern 'nosuch:x=1' of experiment 'mdce-1024'; valid: uniform," experiment mdce-1024 --patterns nosuch:x=1 --quick --no-plot --out "$tmp/em"
bad "unknown pattern 'mehs:wrap=0' of experiment 'mdce-1024'; did you mean 'mesh:wrap=0'? valid:" experiment mdce-1024 --patterns mehs:wrap=0 --quick --no-plot --out "$tmp/em"
bad "unknown network 'Adaptive-CB' of experiment 'rwc1'; did you mean 'Adaptive CB'? valid: CB," experiment rwc1 --networks Adaptive-CB --quick --no-plot --out "$tmp/er"
bad "wrap" experiment mdce-1024 --patterns mesh:wrap=7 --quick --no-plot --out "$tmp/em"
bad "needs every PE" run torus:4x4 --app reduce:rounds=2 --faults nodes=1
bad "only 32 links" sweep torus:4x4 --rates 0.1 --faults links=99 --no-plot

# ---- issue 28 item 4: two outputs naming one file, or both standard output, are refused before the run ----
mkdir -p "$tmp/o28/sub" "$tmp/o28/sw" "$tmp/o28/os" "$tmp/o28/ex"
bad "--json and --csv both name the file" run torus:4x4 --packets 2 --quiet --json "$tmp/o28/same.out" --csv "$tmp/o28/same.out"
bad "--json and --trace both name the file" run torus:4x4 --packets 2 --quiet --json "$tmp/o28/x" --trace "$tmp/o28/sub/../x"
bad "--json and --trace both write to standard output" run torus:4x4 --packets 2 --quiet --json - --trace -
bad "--csv (its .links.csv)" run torus:4x4 --packets 2 --quiet --csv "$tmp/o28/r.csv" --json "$tmp/o28/r.links.csv"
bad "--json and --dot both name the file" topo torus:3x3 --json "$tmp/o28/t" --dot "$tmp/o28/t"
bad "--json and --dot both write to standard output" topo torus:3x3 --json - --dot -
bad "--json and --csv both name the file" app sort -t torus:4x4 --keys 20 --quiet --json "$tmp/o28/a" --csv "$tmp/o28/a"
bad "--out (sweep.csv) and --json" sweep torus:4x4 --rates 0.1 --cycles 50 --no-plot --out "$tmp/o28/sw" --json "$tmp/o28/sw/sweep.csv"
bad "--out (os.json) and --json" os torus:4x4 --rate 0.1 --slice 30 --packets 5 --no-plot --quiet --out "$tmp/o28/os" --json "$tmp/o28/os/os.json"
bad "--out (table.md) and --json" experiment rwc1 --quick --networks CCCB --patterns uniform --cycles 100 --no-plot --out "$tmp/o28/ex" --json "$tmp/o28/ex/table.md"
ls "$tmp/o28" | grep -qv '^sub$\|^sw$\|^os$\|^ex$' && { echo "FAIL: a refused output was written: $(ls "$tmp/o28")"; fail=1; }
# --csv - is refused (never a file called '-'); run where a failing binary's stray files do no harm.
cases=$((cases + 1))
err=$(rica=$(realpath "$RICA") && cd "$tmp/o28" && timeout 60 "$rica" run torus:4x4 --packets 2 --csv - 2>&1 >/dev/null); got=$?
case "$got:$err" in "2:rica: error: --csv: '-' (standard output) is not accepted"*) ;; *) echo "FAIL: --csv - -> exit $got: $err"; fail=1;; esac
good run torus:4x4 --packets 2 --quiet --json /dev/null --csv /dev/null  # devices may be shared

# ---- issue 28 item 7: file content in an error is quoted escaped and cut, one printable line ----------
printf '\000\001\377\033[31mRED\007 zz\n' > "$tmp/binary.bin"
{ head -c 200 /dev/zero | tr '\0' 'A'; printf '\376 1\n'; } > "$tmp/long.bin"
printf 'link 0 \001\377\n' > "$tmp/fault.bin"
printf 'time,src,dst\n0,\001,1\n' > "$tmp/trace.bin"
# printable <needle> <args...>: as bad, and the message is printable ASCII of at most 300 bytes.
printable() {
  local needle=$1; shift
  bad "$needle" "$@"
  local err; err=$(timeout 60 "$RICA" "$@" 2>&1 >/dev/null)
  if printf '%s' "$err" | LC_ALL=C grep -q '[^[:print:]]' || [ "${#err}" -gt 300 ]; then
    echo "FAIL: rica $* -> raw bytes or an uncut echo in: $(printf '%s' "$err" | od -c | head -3)"; fail=1
  fi
}
printable "'\\x00\\x01\\xff\\x1b[31mRED\\x07'" run "file:$tmp/binary.bin"
printable "'... (expected" topo "file:$tmp/long.bin"
printable "--keys-file" app sort -t torus:4x4 --keys-file "$tmp/binary.bin"
printable "'\\x00\\x01" run torus:4x4 --app "sort:file=$tmp/binary.bin"
printable "unknown keyword '\\x00" run torus:4x4 --faults "file:$tmp/binary.bin"
printable "node '\\x01\\xff'" run torus:4x4 --faults "file:$tmp/fault.bin"
printable "src: '\\x01'" run torus:2x2 --traffic "trace:$tmp/trace.bin"

# ---- issue 28 item 8: seeds that wrap, --partition without a cut, --quiet with --progress, --version extra --
bad "--seed/--seeds" run torus:4x4 --seed 18446744073709551615 --seeds 2 --packets 2
bad "--seed/--seeds" sweep torus:4x4 --seed 18446744073709551614 --seeds 3 --rates 0.1 --cycles 50 --no-plot --out "$tmp/o28/s8"
bad "--seed/--seeds" experiment rwc1 --seed 18446744073709551615 --seeds 2 --quick --no-plot --out "$tmp/o28/e8"
good run torus:4x4 --seed 18446744073709551614 --seeds 2 --packets 2 --quiet
bad "--partition: 5 is out of range [0, 0]" os torus:4x4 --partition 5 --out "$tmp/o28/q"
bad "--partition: 1 is out of range [0, 0]" os torus:4x4 --partition 1 --out "$tmp/o28/q"
bad "--partition: 5 is out of range" os torus:4x4 --parts 2 --partition 5 --out "$tmp/o28/q"
for cmd in "sweep torus:4x4 --no-plot --out $tmp/o28/q" "os torus:4x4 --no-plot --out $tmp/o28/q" \
           "experiment rwc1 --quick --no-plot --out $tmp/o28/q"; do
  # shellcheck disable=SC2086
  bad "--quiet excludes --progress" $cmd --quiet --progress
  # shellcheck disable=SC2086
  bad "--quiet excludes --progress" $cmd --progress --quiet
done
bad "--version takes no other argument" --version extra
bad "--version takes no other argument" list --version

# ---- issue 28 item 3: every subcommand estimates its memory from the spec and refuses before it
# builds or allocates. RICA_MEMORY_LIMIT (bytes, K/M/G) caps the available figure (rica/core.hpp
# memory_room); each pair: the largest size of a family under the cap runs, the next is refused,
# in under a second, naming the estimate and what is available.
# over <limit> <args...>: exit 2, one line "rica: error: memory: ... GB are available ...", < 1 s.
over() {
  local limit=$1; shift
  cases=$((cases + 1))
  local t0 err got ms
  t0=$(date +%s%N)
  err=$(RICA_MEMORY_LIMIT=$limit timeout 60 "$RICA" "$@" 2>&1 >/dev/null); got=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  case "$got:$err" in
    "2:rica: error: memory: "*"needs about "*" GB but "*" GB are available"*) ;;
    *) echo "FAIL: RICA_MEMORY_LIMIT=$limit rica $* -> exit $got: $err"; fail=1; return;;
  esac
  [ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] || { echo "FAIL: RICA_MEMORY_LIMIT=$limit rica $* -> not one line"; fail=1; }
  [ "$ms" -lt 1000 ] || { echo "FAIL: RICA_MEMORY_LIMIT=$limit rica $* refused after $ms ms, want < 1 s"; fail=1; }
}
# under <limit> <args...>: the guard lets it run (exit 0).
under() {
  local limit=$1; shift
  cases=$((cases + 1))
  local err; err=$(RICA_MEMORY_LIMIT=$limit timeout 120 "$RICA" "$@" 2>&1 >/dev/null) \
    || { echo "FAIL: RICA_MEMORY_LIMIT=$limit rica $* -> exit $?, want 0: $(printf '%s\n' "$err" | tail -1)"; fail=1; }
}
under 64M topo hypercube:17 --quiet
over 64M topo hypercube:18
over 64M topo hypercube:18 --dot "$tmp/o28/h.dot"
under 64M bound torus:512x512 --quiet
over 64M bound torus:512x1024
under 64M partition torus:512x512 --parts 2 --quiet
over 64M partition torus:512x1024 --parts 2
under 64M embed ring hypercube:18 --quiet
over 64M embed ring hypercube:19
under 64M route mxx:1024 0 5 --quiet
over 64M route mxx:2048 0 5
over 64M topo "product:(mxx:2048)*(mesh:2x2)"
under 16M run torus:64x64 --packets 1 --quiet
over 16M run torus:64x128 --packets 1
over 16M run mxx:4096 --packets 1
under 16M app run reduce:rounds=1 -t torus:64x64 --quiet
over 16M app run reduce:rounds=1 -t torus:64x128
over 16M app sort -t torus:64x128
under 16M sweep torus:32x32 --rates 0.1 --cycles 50 --no-plot --quiet --out "$tmp/o28/m-sweep"
over 16M sweep torus:64x128 --rates 0.1 --cycles 50 --no-plot --out "$tmp/o28/m-sweep"
over 16M os torus:64x128 --no-plot
over 16M os torus:64x128 --parts 2 --no-plot
for v in 0 x 1T -5 "" 1e9; do  # a malformed cap: exit 2, one line naming it
  cases=$((cases + 1))
  err=$(RICA_MEMORY_LIMIT=$v timeout 60 "$RICA" topo torus:4x4 2>&1 >/dev/null); got=$?
  case "$got:$err" in "2:rica: error: RICA_MEMORY_LIMIT: "*) ;; *) echo "FAIL: RICA_MEMORY_LIMIT='$v' -> exit $got: $err"; fail=1;; esac
done

echo "bad_input_tests: $cases cases"
exit $fail
