#!/usr/bin/env bash
# The engines beside the minimal hand-written hop emulator (../shared/bench/hop_emu.cpp), in one
# run on this machine: compare ratios, never absolute rates (the host is shared and noisy).
# Prints hop_emu's median Mhops/s at 1K and 64K PEs, then build/bench/bench_engine's counters
# (Mhops_per_s, bytes_per_pe) for both engines at 1 and 2 threads.
# Usage: scripts/bench_engine.sh [build-dir] [extra bench_engine flags, e.g. --benchmark_filter=async]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$root/build}
[ $# -gt 0 ] && shift
emu_src=$root/../shared/bench/hop_emu.cpp
emu=${TMPDIR:-/tmp}/rica_hop_emu
if [ -f "$emu_src" ]; then
  g++ -O2 -march=native -std=c++17 -o "$emu" "$emu_src" -ltbb -lpthread
  for n in 1024 65536; do
    echo "hop_emu torus $n PEs, 2 threads: $("$emu" torus $n 4 ct thr_act 2 3 2>&1 | grep -o 'med *[0-9.]*' | head -1) Mhops/s"
  done
else
  echo "bench_engine.sh: $emu_src not found; engines only" >&2
fi
"$B/bench/bench_engine" "$@"
