#!/usr/bin/env bash
# README command (1): install only what the CLI needs, build only the `rica` target, and run the main job on the embedded
# default: CCCB 4x16x16 (1,024 PEs) under uniform traffic on the async engine, then the
# network's static measures and one self-routed path.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh demo
mkdir -p out
build/rica demo --json out/demo.json --csv out/demo.csv
echo
build/rica topo
echo
build/rica route cccb:n=4 "(0,0,0)" "(3,15,15)"
