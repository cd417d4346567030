#!/usr/bin/env bash
# The engines beside the minimal hand-written hop emulator (../shared/bench/hop_emu.cpp), in one
# run on this machine: compare ratios, never absolute rates (the host is shared and noisy).
# Prints hop_emu's median Mhops/s at 1K and 64K PEs, then build/bench/bench_engine's counters
# (Mhops_per_s, bytes_per_pe) for both engines at 1 and 2 threads, then the issue's ratios.
# Usage: scripts/bench_engine.sh [build-dir] [extra bench_engine flags, e.g. --benchmark_filter=async]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$root/build}
[ $# -gt 0 ] && shift
emu_src=$root/../shared/bench/hop_emu.cpp
emu=${TMPDIR:-/tmp}/rica_hop_emu
emu_1k=; emu_64k=
if [ -f "$emu_src" ]; then
  g++ -O2 -march=native -std=c++17 -o "$emu" "$emu_src" -ltbb -lpthread
  med() { "$emu" torus "$1" 4 ct thr_act 2 3 2>&1 | grep -o 'med *[0-9.]*' | head -1 | awk '{print $2}'; }
  emu_1k=$(med 1024)
  echo "hop_emu torus 1024 PEs, 2 threads: med $emu_1k Mhops/s"
  emu_64k=$(med 65536)
  echo "hop_emu torus 65536 PEs, 2 threads: med $emu_64k Mhops/s"
else
  echo "bench_engine.sh: $emu_src not found; engines only" >&2
fi
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$B/bench/bench_engine" --benchmark_out="$json" --benchmark_out_format=json "$@"
# The issue's ratios, from the same run: rica / hop_emu (2 threads), 2 threads / 1 thread, and
# the cycle engine's 64K-PE rate at 1 % over its 1K-PE rate at 5 %.
python3 - "$json" "${emu_1k:-0}" "${emu_64k:-0}" <<'PY'
import json, sys
runs = {b["name"].replace("/manual_time", "").replace("/iterations:1", ""): b.get("Mhops_per_s", 0)
        for b in json.load(open(sys.argv[1]))["benchmarks"]}
emu = {"32x32": float(sys.argv[2]), "256x256": float(sys.argv[3])}
print("\nratios (same run):")
for name in sorted({n.rsplit("/", 1)[0] for n in runs}):
    one, two = runs.get(name + "/1"), runs.get(name + "/2")
    line = f"  {name.split('/', 1)[1]:24s}"
    if one and two:
        line += f" 2t/1t {two / one:5.2f}"
    size = next((k for k in emu if k in name), None)
    if two and size and emu[size] > 0 and "async" in name:
        line += f"   rica/hop_emu (2 t) {two / emu[size]:5.3f}"
    print(line)
for t in ("1", "2"):
    small, large = runs.get(f"bm_engine/cycle_torus_32x32/{t}"), runs.get(f"bm_engine/cycle_torus_256x256/{t}")
    if small and large:
        print(f"  cycle 256x256 at 1% / 32x32 at 5%, {t} thread(s): {large / small:.2f}")
PY
