#!/usr/bin/env bash
# Runs every command of docs/getting-started.md, in order, into out/getting-started/ and copies the
# page's pictures into docs/getting-started/ (step number and name). Needs a build in build/
# (bash scripts/demo.sh makes one) and, for the report page's picture, Chromium (scripts/setup.sh).
# About 2 minutes on 2 cores.
# The pictures show the version that drew them (the report page's provenance): it refuses a tree
# with uncommitted changes, and a build/rica configured from another commit or a dirty tree.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! git diff --quiet HEAD -- || [ -n "$(git ls-files --others --exclude-standard)" ]; then
  echo "getting_started.sh: the tree has uncommitted changes; commit them first (the pictures show the version)" >&2
  exit 2
fi
case "$(build/rica --version 2>&1)" in
  *dirty*|*unknown*) echo "getting_started.sh: build/rica is from a dirty tree: rebuild it (cmake --preset release)" >&2; exit 2 ;;
  *"$(git rev-parse --short=7 HEAD)"*) ;;
  *) echo "getting_started.sh: build/rica is not built from HEAD ($(git rev-parse --short HEAD)): rebuild it" >&2; exit 2 ;;
esac
R=build/rica
O=out/getting-started
D=docs/getting-started
mkdir -p "$O" "$D"
# 1. The demo, over time.
$R demo --engine cycle --telemetry 1000 --json $O/demo.json --csv $O/demo.csv --quiet
$R plot telemetry $O/demo.telemetry_windows.csv --quiet
cp $O/demo.telemetry.png $D/1-demo-over-time.png
# 2. A sweep.
mkdir -p $O/sweep
$R sweep torus:8x8 cccb:n=2 hypercube:6 --rate 0.02:0.5:0.04 --out $O/sweep --json $O/sweep/sweep.json --quiet
cp $O/sweep/latency_vs_accepted.png $D/2-sweep.png
# 3. Its report page.
$R report $O/sweep --quiet
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1500 \
  --screenshot="$PWD/$D/3-report-page.png" "file://$PWD/$O/sweep/report.html" 2>/dev/null
# 4. A run's heat map, latency distribution and packet trace.
$R run torus:8x8 --engine cycle --traffic transpose --rate 0.2 --json $O/run.json --csv $O/run.csv \
  --trace-events $O/run.trace.json --quiet
$R plot links $O/run.json --quiet > /dev/null
cp $O/run.links.png $D/4-heat-map.png
$R plot latency $O/run.json --quiet > /dev/null
cp $O/run.latency.png $D/4-latency.png
$R plot trace $O/run.trace.json --quiet > /dev/null
cp $O/run.trace.png $D/4-trace.png
# 5. A first application.
mkdir -p $O/app
$R run torus:8x8 --engine cycle --app stencil:grid=64x64,iterations=20 --json $O/app/app.json --csv $O/app/app.csv \
  --quiet
$R plot links $O/app/app.json --quiet > /dev/null
cp $O/app/app.links.png $D/5-application.png
# 6. A first OS comparison.
$R os torus:8x8 --rate 0.01,0.05 --slice 500,2000 --telemetry 500 --out $O/os --quiet > /dev/null
$R report $O/os --quiet
cp $O/os/switch_cost.png $D/6-os-switch-cost.png
# The page's drain/flush timeline section alone (its own style kept), as Chromium draws it.
python3 - $O/os/report.html $O/os/timeline.html <<'PY'
import re, sys
page = open(sys.argv[1]).read()
style = re.search(r"<style>.*?</style>", page, re.S).group(0)
section = re.search(r'<section id="timeline">.*?</section>', page, re.S).group(0)
open(sys.argv[2], "w").write(f"<!DOCTYPE html><html><head><meta charset='utf-8'>{style}</head><body>{section}</body></html>")
PY
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,760 \
  --screenshot="$PWD/$D/6-os-timeline.png" "file://$PWD/$O/os/timeline.html" 2>/dev/null
echo "pictures written to $D"
