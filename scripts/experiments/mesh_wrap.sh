#!/usr/bin/env bash
# Mesh emulation on a non-wrapping logical mesh (--patterns mesh:wrap=0) under the set-ups of
# mdce-1024 and rwc1: OUT/mdce-1024 and OUT/rwc1, each a full `rica experiment` output. The
# wrapping figures are the committed experiments' own (docs/experiments/{mdce-1024,rwc1}); the
# closed loop (pacing rate 1) of both is compared in docs/reproduction.md.
# Usage: scripts/experiments/mesh_wrap.sh [OUT] [rica experiment options]   (default docs/experiments/mesh-wrap)
# RICA=path/to/rica overrides the binary (default build/rica; scripts/build.sh builds it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rica=${RICA:-$root/build/rica}
out=${1:-$root/docs/experiments/mesh-wrap}
[ $# -gt 0 ] && shift
[ -x "$rica" ] || { echo "mesh_wrap.sh: no rica at $rica (run scripts/build.sh or set RICA)" >&2; exit 2; }
for setup in mdce-1024 rwc1; do
  "$rica" experiment "$setup" --patterns mesh:wrap=0 --out "$out/$setup" "$@"
done
