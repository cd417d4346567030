#!/usr/bin/env bash
# The cycle engine beside a busy core (issue 43): 1 and 2 threads of `rica run` while another
# process spins on one of the host's cores (a shell busy loop; BUSY=0 runs without it), REPS pairs
# in ABBA order (1/2, 2/1, ...), so a drift of the host's load falls on both alike. Prints, per
# spec, the median wall times (the runs' own wall_s: the machine's build and the file writing
# excluded), the ratio speed(2 threads) / speed(1 thread) of the medians and the median of the
# pairs' ratios, and checks that both thread counts gave the same results (the JSON's
# figures, timing fields aside).
# The target (docs/runtime.md "A busy core"): 2 threads >= 0.95x of 1 thread on torus:32x32 at 5 %.
# Usage: scripts/bench_busy_core.sh [build-dir]   (prints a Markdown table)
#   environment: REPS (pairs, 5), BUSY (1: a busy loop beside the runs), SPECS (the runs' arguments,
#   ';'-separated; default torus:32x32 and torus:128x128 at 5 %, 1-cycle links, 20,000 cycles),
#   OUT (the runs' JSON)
set -euo pipefail
B=${1:-build}
rica=$B/rica
[ -x "$rica" ] || { echo "bench_busy_core: $rica not found: build first" >&2; exit 2; }
OUT=${OUT:-/tmp/rica-bench-busy-core}
REPS=${REPS:-5}
BUSY=${BUSY:-1}
SPECS=${SPECS:-"torus:32x32 --engine cycle --rate 0.05 --link-cycles 1 --cycles 20000;torus:128x128 --engine cycle --rate 0.05 --link-cycles 1 --cycles 2000"}
mkdir -p "$OUT"
busy_pid=
cleanup() { [ -n "$busy_pid" ] && kill "$busy_pid" 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ "$BUSY" = 1 ]; then
  bash -c 'while :; do :; done' &
  busy_pid=$!
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); busy loop: ${busy_pid:-none}; $(nproc) cores"
echo
echo "| run | 1 thread: median wall s ($REPS) | 2 threads: median wall s | speed 2/1 (medians) | speed 2/1 (median of pairs) | same results |"
echo "|---|---|---|---|---|---|"
IFS=';' read -r -a specs <<<"$SPECS"
n=0
for spec in "${specs[@]}"; do
  n=$((n + 1))
  read -r -a args <<<"$spec"
  for r in $(seq 1 "$REPS"); do
    if [ $((r % 2)) = 1 ]; then order="1 2"; else order="2 1"; fi
    for t in $order; do
      "$rica" run "${args[@]}" --threads "$t" --quiet --json "$OUT/s$n-t$t-r$r.json" >/dev/null
    done
  done
  python3 - "$OUT" "$n" "$REPS" "$spec" <<'PY'
import json, statistics, sys
out, n, reps, spec = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
load = lambda t, r: json.load(open(f"{out}/s{n}-t{t}-r{r}.json"))
w1 = [load(1, r)["wall_s"] for r in range(1, reps + 1)]
w2 = [load(2, r)["wall_s"] for r in range(1, reps + 1)]
volatile = {"threads", "config", "peak_rss_kb", "bytes_per_pe", "command_line", "start_time", "outputs"}
strip = lambda j: {k: v for k, v in j.items() if k not in volatile and "wall" not in k and "per_s" not in k}
same = all(strip(load(1, r)) == strip(load(2, r)) for r in range(1, reps + 1))
m1, m2 = statistics.median(w1), statistics.median(w2)
pairs = statistics.median(a / b for a, b in zip(w1, w2))
print(f"| `{spec}` | {m1:.3f} | {m2:.3f} | {m1 / m2:.2f} | {pairs:.2f} | {'yes' if same else 'NO'} |")
PY
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
