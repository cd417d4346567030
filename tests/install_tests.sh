#!/usr/bin/env bash
# Installs rica from BUILD into a temporary prefix, checks the layout (nothing refers to the source
# or build tree), builds examples/external against it (CMake package and pkg-config) and runs the
# user's app through its own driver and through rica's subcommands. Usage: install_tests.sh BUILD
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
P=$TMP/prefix
fail() { echo "install_tests: FAIL: $*" >&2; exit 1; }
# A sanitizer build (scripts/sanitize.sh): the Python import preloads the sanitizer's runtime, and
# examples/external is not built (its CMake and pkg-config builds would need -fsanitize, which the
# installed package does not carry); the layout, the installed binary and Python are still checked.
preload=() sanitized=0
case "$(ldd "$BUILD/rica" 2>/dev/null)" in
  *libtsan.so*) preload=(env LD_PRELOAD="$(c++ -print-file-name=libtsan.so):$(c++ -print-file-name=libstdc++.so.6)") sanitized=1 ;;
  *libasan.so*) preload=(env LD_PRELOAD="$(c++ -print-file-name=libasan.so):$(c++ -print-file-name=libstdc++.so.6)" ASAN_OPTIONS=detect_leaks=0) sanitized=1 ;;
esac

cmake --install "$BUILD" --prefix "$P" >/dev/null
for f in bin/rica include/rica/engine.hpp include/rica/cli.hpp include/rica/apps/traffic.hpp \
         include/rica/os_policy.hpp lib/cmake/rica/ricaConfig.cmake lib/cmake/rica/ricaConfigVersion.cmake \
         lib/cmake/rica/ricaTargets.cmake lib/pkgconfig/rica.pc share/rica/scripts/plot_sweep.py; do
  [ -e "$P/$f" ] || fail "not installed: $f"
done
ls "$P"/lib/librica_runtime.* >/dev/null 2>&1 || fail "librica_runtime not installed"
# The installed headers are the public API only: nothing of the machine's internals (runtime/).
[ ! -e "$P/include/rica/internal" ] || fail "internal headers installed: $(ls "$P/include/rica/internal")"
SITE=$(ls -d "$P"/lib/python3*/dist-packages 2>/dev/null | head -1)
[ -n "$SITE" ] && [ -e "$SITE/rica/__init__.py" ] && ls "$SITE"/rica/_rica*.so >/dev/null 2>&1 ||
  fail "the Python package is not installed under lib/python3.X/dist-packages"
# No installed file (text or binary) names the source or build tree. A binary's debug sections
# (RelWithDebInfo: the sanitizer presets) name its sources by design: binaries are checked without
# them (objcopy --strip-debug; a file it cannot read is checked whole).
bad=""
for f in $(grep -rl -e "$SRC" -e "$BUILD" "$P" 2>/dev/null); do
  if objcopy --strip-debug "$f" "$TMP/stripped" 2>/dev/null && ! grep -q -e "$SRC" -e "$BUILD" "$TMP/stripped"; then
    continue
  fi
  # ASan's instrumented globals carry their source file's name outside the debug sections, by
  # design: in a sanitizer build binaries and archives may name sources; text files still may not.
  if [ "$sanitized" = 1 ] && { [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] ||
                               [ "$(head -c 7 "$f")" = '!<arch>' ]; }; then continue; fi
  bad="$bad $f"
done
[ -z "$bad" ] || fail "installed files refer to the source or build tree:$bad"
# The installed binary runs from anywhere, and finds its plot scripts beside itself.
(cd "$TMP" && "$P/bin/rica" sweep torus:4x4 --rates 0.05,0.1 --cycles 300 --out "$TMP/sw" >/dev/null 2>"$TMP/err") ||
  fail "installed rica sweep: $(cat "$TMP/err")"
[ -s "$TMP/sw/sweep.csv" ] || fail "installed rica sweep wrote no CSV"
if grep -q "plots skipped" "$TMP/err"; then
  python3 -c "import matplotlib" 2>/dev/null && fail "installed rica did not find its plot scripts: $(cat "$TMP/err")"
fi

# The installed Python package imports from the prefix (not the build tree) and runs.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
(cd "$TMP" && PYTHONPATH="$SITE" PYTHONDONTWRITEBYTECODE=1 "${preload[@]}" "$PY" -c "
import rica, sys
assert rica.__file__.startswith('$SITE'), rica.__file__
r = rica.run('torus:4x4', engine='cycle', rate=0.1, cycles=200)
sys.exit(0 if r.status == 0 and r.delivered > 0 else 1)") || fail "installed Python package"

if [ "$sanitized" = 1 ]; then
  echo "install_tests: examples/external skipped (sanitizer build)"
  exit 0
fi
# examples/external: a separate CMake project on the installed package.
cmake -S "$SRC/examples/external" -B "$TMP/ext" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$P" >/dev/null
cmake --build "$TMP/ext" -j 2 >/dev/null
cd "$TMP"
"$TMP/ext/ring_driver" torus:4x4 3 | tee "$TMP/driver.txt"
[ "$(grep -c verified "$TMP/driver.txt")" = 2 ] || fail "ring_driver: both engines must verify"
"$TMP/ext/ring_driver" uring:8 2 | tee "$TMP/udriver.txt"
[ "$(grep -c "uring:n=8 .* verified" "$TMP/udriver.txt")" = 2 ] || fail "ring_driver uring:8: both engines must verify"
"$TMP/ext/ring_driver" nosuch:1 2>"$TMP/err" && fail "ring_driver accepted a bad spec"
grep -q "unknown topology 'nosuch'" "$TMP/err" || fail "ring_driver: $(cat "$TMP/err")"

R="$TMP/ext/rica_ring"
"$R" list > "$TMP/list.txt"
grep -q "^  ring " "$TMP/list.txt" || fail "rica_ring list: no ring application"
grep -q "^  reverse " "$TMP/list.txt" || fail "rica_ring list: no reverse traffic"
"$R" run torus:4x4 --app ring:laps=3 --quiet --json "$TMP/ring.json"
python3 -c "import json,sys; j=json.load(open('$TMP/ring.json')); sys.exit(0 if j['verified'] and j['delivered']==48 and j['app']['passes']==48 else 1)" ||
  fail "rica_ring run --app ring: $(cat "$TMP/ring.json")"
"$R" run torus:4x4 --app ring:laps=2 --engine cycle --quiet >/dev/null
grep -q "^  dring " "$TMP/list.txt" || fail "rica_ring list: no dring topology"
"$R" run dring:12 --app ring:laps=2 --engine cycle --quiet --json "$TMP/dring.json"
python3 -c "import json,sys; j=json.load(open('$TMP/dring.json')); sys.exit(0 if j['verified'] and j['topology']=='dring:n=12' and j['delivered']==24 else 1)" ||
  fail "rica_ring run dring:12: $(head -c 300 "$TMP/dring.json")"
"$R" topo dring:12 --json - --quiet | grep -q '"diameter": 6' || fail "rica_ring topo dring:12"
# The user's routing function (uring.cpp, a UserTopology): listed, run by name on both engines, measured.
grep -q "^  uring " "$TMP/list.txt" || fail "rica_ring list: no uring topology"
for engine in async cycle; do
  "$R" run uring:12 --app ring:laps=2 --engine $engine --quiet --json "$TMP/uring.json"
  python3 -c "import json,sys; j=json.load(open('$TMP/uring.json')); sys.exit(0 if j['verified'] and j['topology']=='uring:n=12' and j['delivered']==24 else 1)" ||
    fail "rica_ring run uring:12 --engine $engine: $(head -c 300 "$TMP/uring.json")"
done
"$R" topo uring:12 --json - --quiet | grep -q '"routed_diameter": 6' || fail "rica_ring topo uring:12"
"$R" run uring:2 --app ring 2>"$TMP/err" && fail "rica_ring accepted uring:2"
[ "$(wc -l < "$TMP/err")" = 1 ] && grep -q "uring" "$TMP/err" || fail "rica_ring uring:2: $(cat "$TMP/err")"
"$R" run torus:4x4 --traffic reverse --engine cycle --cycles 200 --quiet --json "$TMP/rev.json"
python3 -c "import json,sys; j=json.load(open('$TMP/rev.json')); sys.exit(0 if j['traffic']=='reverse' and j['delivered']>0 else 1)" ||
  fail "rica_ring run --traffic reverse"
"$R" sweep mesh:4x4 --traffic reverse --rates 0.05,0.1 --cycles 300 --out "$TMP/rsw" >/dev/null 2>"$TMP/err"
[ "$(wc -l < "$TMP/rsw/sweep.csv")" = 3 ] || fail "rica_ring sweep: $(cat "$TMP/rsw/sweep.csv")"
if grep -q "plots skipped" "$TMP/err"; then
  python3 -c "import matplotlib" 2>/dev/null && fail "rica_ring did not find the installed plot scripts: $(cat "$TMP/err")"
fi
"$R" os torus:4x4 --parts 2 --job ring:laps=2 --job reverse --out "$TMP/os" --no-plot >/dev/null 2>"$TMP/err" ||
  fail "rica_ring os --job ring: $(cat "$TMP/err")"
"$R" app run ring:laps=2 -t torus:4x4 -t hypercube:4 --quiet --json "$TMP/app.json" >/dev/null
python3 -c "import json,sys; j=json.load(open('$TMP/app.json')); sys.exit(0 if j['verified'] and len(j['runs'])==2 else 1)" ||
  fail "rica_ring app run ring: $(head -c 300 "$TMP/app.json")"
"$R" run torus:4x4 --app ring:laps=0 2>"$TMP/err" && fail "rica_ring accepted laps=0"
[ "$(wc -l < "$TMP/err")" = 1 ] && grep -q "laps" "$TMP/err" || fail "rica_ring laps=0: $(cat "$TMP/err")"

# Every installed header compiles on its own from the prefix (one translation unit each), and
# only P/include is on a consumer's include path (a user's own machine.hpp or traffic.hpp cannot
# collide with rica's).
H=$TMP/headers
mkdir -p "$H"
{
  echo 'cmake_minimum_required(VERSION 3.22)'
  echo 'project(rica_headers LANGUAGES CXX)'
  echo 'find_package(rica CONFIG REQUIRED)'
  echo 'add_library(headers OBJECT)'
  echo 'target_link_libraries(headers PRIVATE rica::cli)'
} > "$H/CMakeLists.txt"
n=0
while IFS= read -r hdr; do
  n=$((n + 1))
  echo "#include <${hdr#"$P/include/"}>" > "$H/h$n.cpp"
  echo "target_sources(headers PRIVATE h$n.cpp)" >> "$H/CMakeLists.txt"
done < <(find "$P/include/rica" -name '*.hpp' | sort)
[ "$n" -gt 40 ] || fail "only $n installed headers"
echo '#include "machine.hpp"' > "$H/own.cpp"  # a user header named like rica's internal one
echo 'int user_machine_hpp = 1;' > "$H/machine.hpp"
echo "target_sources(headers PRIVATE own.cpp)" >> "$H/CMakeLists.txt"
cmake -S "$H" -B "$H/b" -G Ninja -DCMAKE_PREFIX_PATH="$P" >/dev/null
cmake --build "$H/b" -j 2 >"$TMP/hdr.log" 2>&1 ||
  fail "installed headers do not compile on their own: $(grep -m3 error "$TMP/hdr.log")"
if grep -q "rica/internal\|rica/apps" "$P/lib/cmake/rica/ricaTargets.cmake" "$P/lib/pkgconfig/rica.pc"; then
  fail "rica/internal or rica/apps on a consumer's include path"
fi

# docs/extending.md's own code, built against the prefix: its application, traffic pattern, switch
# policy and both topology families, each a translation unit of one program on rica::cli (the
# application is user::RingToken of examples/external/ring.hpp), then run by name, plots included.
D=$TMP/docext
mkdir -p "$D"
python3 - "$SRC/docs/extending.md" "$D" <<'PYEOF' || fail "docs/extending.md: the code blocks of its sections"
import re, sys
text = open(sys.argv[1]).read()
def blocks(section):
    body = text.split("\n## " + section + "\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```cpp\n(.*?)```", body, re.S)
app, traffic = blocks("Adding an application")[0], blocks("Adding a traffic pattern")[0]
policy = blocks("Adding a switch policy")[0]
dring, uring = blocks("Adding a topology family")[:2]
open(f"{sys.argv[2]}/doc_observer.cpp", "w").write(blocks("Observing a run")[0])
for name, code in (("app", '#include "ring.hpp"\n' + app), ("traffic", traffic), ("policy", policy),
                   ("dring", dring), ("uring", uring)):
    open(f"{sys.argv[2]}/doc_{name}.cpp", "w").write(code)
PYEOF
cat > "$D/CMakeLists.txt" <<CMAKEEOF
cmake_minimum_required(VERSION 3.22)
project(rica_doc_extensions LANGUAGES CXX)
find_package(rica CONFIG REQUIRED)
add_executable(doc_rica doc_app.cpp doc_traffic.cpp doc_policy.cpp doc_dring.cpp doc_uring.cpp
               $SRC/examples/external/ring.cpp)
target_include_directories(doc_rica PRIVATE $SRC/examples/external)
target_link_libraries(doc_rica PRIVATE rica::cli)
add_executable(doc_observer doc_observer.cpp)
target_link_libraries(doc_observer PRIVATE rica::runtime rica::traffic)
CMAKEEOF
cmake -S "$D" -B "$D/b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$P" >/dev/null
cmake --build "$D/b" -j 2 >"$TMP/doc.log" 2>&1 ||
  fail "docs/extending.md's code does not build: $(grep -m3 error "$TMP/doc.log")"
DR=$D/b/doc_rica
"$DR" list > "$TMP/doclist.txt"
for name in ring reverse drain-later dring uring; do
  grep -q "^  $name " "$TMP/doclist.txt" || fail "docs/extending.md: '$name' not in rica list"
done
"$DR" run torus:4x4 --app ring:laps=2 --quiet >/dev/null || fail "doc app: run --app ring"
"$D/b/doc_observer" > "$TMP/docobs.txt" || fail "doc observer: the program failed: $(tail -3 "$TMP/docobs.txt")"
grep -q "^window 0-500: 0\.0[0-9]* packets/PE/cycle" "$TMP/docobs.txt" && grep -q "^delivered 6400 in " "$TMP/docobs.txt" ||
  fail "doc observer: unexpected output: $(head -3 "$TMP/docobs.txt")"
"$DR" run torus:4x4 --traffic reverse --engine cycle --cycles 200 --quiet >/dev/null || fail "doc traffic: --traffic reverse"
"$DR" run dring:12 --app ring:laps=2 --engine cycle --quiet >/dev/null || fail "doc topology: run dring:12"
"$DR" run uring:12 --app ring:laps=2 --quiet >/dev/null || fail "doc topology: run uring:12"
(cd "$TMP" && "$DR" os torus:4x4 --policy drain,drain-later --rate 0.05 --slice 100 --packets 20 --out "$TMP/docos" \
  >"$TMP/docos.txt" 2>"$TMP/err") || fail "doc policy: os --policy drain-later: $(cat "$TMP/err")"
grep -q "^drain-later" "$TMP/docos.txt" || fail "doc policy: no drain-later row: $(cat "$TMP/docos.txt")"
if python3 -c "import matplotlib" 2>/dev/null; then  # the plots, through the installed scripts
  if grep -q "plots skipped" "$TMP/err" "$TMP/docos.txt"; then fail "doc policy: plots skipped: $(cat "$TMP/err")"; fi
  ls "$TMP/docos"/*.png >/dev/null 2>&1 || fail "doc policy: rica os wrote no plot"
fi

# pkg-config: the user's driver built by hand against rica.pc.
PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --exists rica || fail "pkg-config: rica not found"
# shellcheck disable=SC2046
g++ -std=c++20 -O1 -o "$TMP/driver_pc" "$SRC/examples/external/driver.cpp" "$SRC/examples/external/ring.cpp" \
  "$SRC/examples/external/uring.cpp" \
  $(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --cflags --libs rica) -Wl,-rpath,"$P/lib"
"$TMP/driver_pc" hypercube:4 1 >/dev/null || fail "driver built with pkg-config"
"$TMP/driver_pc" uring:6 1 >/dev/null || fail "driver built with pkg-config: uring:6"
echo "install_tests: ok (prefix layout, $n headers on their own, docs/extending.md's code, examples/external via find_package and pkg-config)"
