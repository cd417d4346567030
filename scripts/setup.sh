#!/usr/bin/env bash
# Installs every Debian package rica needs to build, test and benchmark (chromium: the headless
# browser the report-page test opens `rica report` pages in, tests/report_tests.sh; OTF2: the
# archives `rica record` writes and `rica replay` reads; clang and its runtime: the libFuzzer targets).
# Idempotent: quiet and fast when everything is present. Needs root (or sudo) only when
# something is missing. Works on a fresh Debian 12.
#   bash scripts/setup.sh        everything (README command 2, scripts/test.sh)
#   bash scripts/setup.sh demo   only what building the rica CLI needs (README command 1, scripts/demo.sh)
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libtbb-dev libboost-dev libmetis-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libopenmpi-dev openmpi-bin
  python3 python3-matplotlib valgrind graphviz
  python3-dev python3-pybind11 python3-numpy python3-pandas python3-pytest
  chromium
  libotf2-trace-dev otf2-tools
  clang libclang-rt-14-dev
)

# What building the `rica` target alone needs (CMakeLists.txt's required find_package/find_library
# with RICA_BUILD_TESTS/BENCH/PYTHON off; MPI is optional): the first result in minutes.
DEMO_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libtbb-dev libboost-dev libmetis-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
)
case "${1:-all}" in
  all) ;;
  demo) PACKAGES=("${DEMO_PACKAGES[@]}") ;;
  *) echo "setup: unknown set '$1'; accepted: demo, all" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done" >&2
