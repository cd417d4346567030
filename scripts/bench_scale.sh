#!/usr/bin/env bash
# Million-endpoint machines on the cycle engine (issue 43; docs/runtime.md "Scale"): each spec at
# 1 % uniform load, 1-cycle links, CYCLES cycles of injection then the drain, on 2 threads and
# (SAME=1) again on 1 thread, whose results must equal the 2-thread run's (the JSON's figures less
# timing and memory). Per run: PEs, nodes, peak RSS (/usr/bin/time -v, the whole process),
# set-up and finish (elapsed less the run's own wall_s: building the topology and the machine,
# collecting and writing the results), the run's wall time, packet-hops/s (= packet transfers/s:
# every link crossing, terminal links included), exactly-once.
# Runs one machine at a time and refuses to start one when `free` shows less than NEED GB available.
# Usage: scripts/bench_scale.sh [build-dir]   (prints a Markdown table)
#   environment: SPECS (space-separated; default dragonfly:h=24 slimfly:q=89), CYCLES (200),
#   RATE (0.01), SAME (1), NEED (16), OUT (/tmp/rica-bench-scale)
set -euo pipefail
B=${1:-build}
rica=$B/rica
[ -x "$rica" ] || { echo "bench_scale: $rica not found: build first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench_scale: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }
SPECS=${SPECS:-"dragonfly:h=24 slimfly:q=89"}
CYCLES=${CYCLES:-200}
RATE=${RATE:-0.01}
SAME=${SAME:-1}
NEED=${NEED:-16}
OUT=${OUT:-/tmp/rica-bench-scale}
mkdir -p "$OUT"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| machine | threads | PEs | nodes | peak RSS GB | set-up + finish s | run s | M packet-hops/s | exactly once | 1 thread identical |"
echo "|---|---|---|---|---|---|---|---|---|---|"
run() {  # run SPEC THREADS
  local spec=$1 t=$2 tag
  tag=$(echo "$spec" | tr ':=,' '___')-t$t
  local avail
  avail=$(free -g | awk '/^Mem:/ {print $7}')
  if [ "$avail" -lt "$NEED" ]; then
    echo "bench_scale: only $avail GB available, $NEED needed: $spec skipped" >&2
    return 1
  fi
  /usr/bin/time -v "$rica" run "$spec" --engine cycle --rate "$RATE" --link-cycles 1 --cycles "$CYCLES" --threads "$t" \
    --quiet --json "$OUT/$tag.json" >/dev/null 2>"$OUT/$tag.time"
}
for spec in $SPECS; do
  run "$spec" 2 || continue
  [ "$SAME" = 1 ] && { run "$spec" 1 || true; }
  python3 - "$OUT" "$spec" "$SAME" <<'PY'
import json, os, re, sys
out, spec, same = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
tag = lambda t: spec.replace(":", "_").replace("=", "_").replace(",", "_") + f"-t{t}"
def load(t):
    j = json.load(open(f"{out}/{tag(t)}.json"))
    text = open(f"{out}/{tag(t)}.time").read()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    h, m, s = ([0, 0] + [float(x) for x in re.search(r"Elapsed \(wall clock\) time.*: ([\d:.]+)", text).group(1).split(":")])[-3:]
    return j, rss, h * 3600 + m * 60 + s
volatile = lambda k: "wall" in k or "per_s" in k or k in {"peak_rss_kb", "bytes_per_pe", "threads", "command_line",
                                                          "start_time", "outputs", "config", "provenance"}
strip = lambda j: {k: v for k, v in j.items() if not volatile(k)}
j2, rss2, el2 = load(2)
ident = "—"
if same and os.path.exists(f"{out}/{tag(1)}.json"):
    j1, rss1, el1 = load(1)
    ident = "yes" if strip(j1) == strip(j2) else "NO"
rows = [(2, j2, rss2, el2)] + ([(1, j1, rss1, el1)] if ident != "—" else [])
for t, j, rss, el in rows:
    ok = "yes" if j["conservation_ok"] and j.get("duplicates", 0) == 0 else "NO"
    print(f"| `{spec}` | {t} | {j['pes']:,} | {j['nodes']:,} | {rss / 1024 / 1024:.2f} | {el - j['wall_s']:.1f} | "
          f"{j['wall_s']:.1f} | {j['packet_hops_per_s'] / 1e6:.2f} | {ok} ({j['verify_method']}) | {ident} |")
PY
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
