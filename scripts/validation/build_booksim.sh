#!/usr/bin/env bash
# Builds BookSim2 for scripts/validation/booksim_compare.py, outside the repository, from a checkout
# you made yourself (nothing is downloaded here, and BookSim2 is never committed):
#
#     git clone https://github.com/booksim/booksim2 /tmp/booksim2      # (validated at 28f43299)
#     bash scripts/validation/build_booksim.sh /tmp/booksim2 /tmp/booksim-build
#
# Needs flex, bison and g++ (install them yourself; rica does not depend on them). Writes two
# binaries into OUT (a copy of the source is patched there, the checkout is left alone):
#   OUT/booksim        DRAGON_LATENCY off: the dragonfly's channels take 1 cycle, as every other
#                      network's (its source #defines 10-cycle local and 100-cycle global channels)
#   OUT/booksim-ugal0  the same with UGAL's adaptive_threshold 30 -> 0,
#   OUT/booksim-ugal0g that, and UGAL turning minimal on entering the intermediate group (not router),
#   OUT/booksim-tieplus  with dim_order_torus taking a ring tie (k/2 away) the + way, as rica does,
#                      instead of at random (the one-parameter checks of docs/validation.md)
#   OUT/booksim-dateline dor_next_torus choosing the VC partition at every hop from the rest of the
#                      ring path (rica's class rule), not once on entering the ring
#   OUT/booksim-ugal0gh  booksim-ugal0g weighing UGAL's queues by the two paths' router hops, as
#                      rica does, not 1 : 2 (booksim-ugal-hops.patch, beside this script)
#   OUT/booksim-ugal0gv  booksim-ugal0g taking num_vcs = any multiple of 3, num_vcs / 3 VCs per UGAL
#                      phase (booksim-ugal-vcs.patch); with num_vcs = 3 it is booksim-ugal0g
#   OUT/booksim-ugal0gp  booksim-ugal0g weighing the occupancy of the VC each path takes out of the
#                      router, not of the whole port (booksim-ugal-pervc.patch)
#   OUT/booksim-ugal0gf  booksim-ugal0g deciding at the source router in every cycle the head waits for
#                      VC allocation, with that cycle's credits, not once when the packet left its
#                      terminal (booksim-ugal-fresh.patch)
#   OUT/booksim-ugal0gpf both: booksim-ugal0gp deciding as booksim-ugal0gf
# ONLY="NAME ..." builds just those (e.g. ONLY=booksim-ugal0gp); a build of a name not given is left alone.
set -euo pipefail
src=${1:?usage: build_booksim.sh BOOKSIM2_CHECKOUT OUT}
out=${2:?usage: build_booksim.sh BOOKSIM2_CHECKOUT OUT}
for tool in flex bison g++ make patch; do
  command -v "$tool" >/dev/null || { echo "build_booksim.sh: $tool is missing" >&2; exit 2; }
done
[ -f "$src/src/Makefile" ] || { echo "build_booksim.sh: $src is not a booksim2 checkout (no src/Makefile)" >&2; exit 2; }
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
build() {  # build NAME FILE SED-EXPRESSION-FOR-FILE [PATCH...]
  [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]] || return 0
  local dir="$out/src-$1"
  rm -rf "$dir" && cp -r "$src/src" "$dir"
  sed -i 's|^#define DRAGON_LATENCY|// #define DRAGON_LATENCY|' "$dir/networks/dragonfly.cpp"
  [ -n "$3" ] && sed -i "$3" "$dir/$2"
  local p
  for p in "${@:4}"; do
    patch -s -d "$dir" -p2 <"$here/$p" || { echo "build_booksim.sh: $p does not apply to $src" >&2; exit 2; }
  done
  make -C "$dir" -j"${JOBS:-1}" >"$out/make-$1.log" 2>&1 || { echo "build_booksim.sh: make failed, see $out/make-$1.log" >&2; exit 2; }
  cp "$dir/booksim" "$out/$1"
}
build booksim "" ""
build booksim-ugal0 networks/dragonfly.cpp 's|int adaptive_threshold = 30;|int adaptive_threshold = 0;|'
[ -n "${ONLY:-}" ] || grep -q 'adaptive_threshold = 0;' "$out/src-booksim-ugal0/networks/dragonfly.cpp" ||
  { echo "build_booksim.sh: the UGAL threshold was not found in networks/dragonfly.cpp" >&2; exit 2; }
build booksim-ugal0g networks/dragonfly.cpp \
  's|int adaptive_threshold = 30;|int adaptive_threshold = 0;|;s|    if( rID == intm_rID){|    if( grp_ID == intm_rID / gA ){|'
[ -n "${ONLY:-}" ] || grep -q 'grp_ID == intm_rID / gA' "$out/src-booksim-ugal0g/networks/dragonfly.cpp" ||
  { echo "build_booksim.sh: UGAL's phase change was not found in networks/dragonfly.cpp" >&2; exit 2; }
build booksim-tieplus routefunc.cpp 's|( ( dist2 == 0 ) \&\& ( RandomInt( 1 ) ) ) ) {$|( dist2 == 0 ) ) {|'
[ -n "${ONLY:-}" ] || grep -q '( dist2 == 0 ) ) {$' "$out/src-booksim-tieplus/routefunc.cpp" ||
  { echo "build_booksim.sh: the ring tie rule was not found in routefunc.cpp" >&2; exit 2; }
build booksim-dateline routefunc.cpp 's|^    if ( (in_port/2) != dim_left ) {$|    if ( true ) {|'
[ -n "${ONLY:-}" ] || grep -q '^    if ( true ) {$' "$out/src-booksim-dateline/routefunc.cpp" ||
  { echo "build_booksim.sh: the ring's VC partition rule was not found in routefunc.cpp" >&2; exit 2; }
ugal0g='s|int adaptive_threshold = 30;|int adaptive_threshold = 0;|;s|    if( rID == intm_rID){|    if( grp_ID == intm_rID / gA ){|'
build booksim-ugal0gh networks/dragonfly.cpp "$ugal0g" booksim-ugal-hops.patch
build booksim-ugal0gv networks/dragonfly.cpp "$ugal0g" booksim-ugal-vcs.patch
build booksim-ugal0gp networks/dragonfly.cpp "$ugal0g" booksim-ugal-pervc.patch
build booksim-ugal0gf networks/dragonfly.cpp "$ugal0g" booksim-ugal-fresh.patch
build booksim-ugal0gpf networks/dragonfly.cpp "$ugal0g" booksim-ugal-pervc.patch booksim-ugal-fresh.patch
for b in booksim booksim-ugal0 booksim-ugal0g booksim-tieplus booksim-dateline booksim-ugal0gh booksim-ugal0gv \
         booksim-ugal0gp booksim-ugal0gf booksim-ugal0gpf; do
  [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $b "* ]] && printf '%s ' "$out/$b"
done
echo
