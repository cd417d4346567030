#!/usr/bin/env bash
# Issue 45: every command of docs/getting-started.md runs as written. The page's commands (its
# indented code lines, and inline `build/rica ...` spans) are extracted and run, in order, from a
# fresh temporary directory that holds only the page's inputs (build/rica: the rica under test;
# examples/: the repository's example inputs), so a command that relies on a directory nobody
# created, or on a file of the developer's tree, fails here. Each output a command names must exist.
# Usage: getting_started_tests.sh <rica> <source dir>
set -u
RICA=$(readlink -f "${1:?path to rica}")
SRC=${2:?source dir}
PAGE="$SRC/docs/getting-started.md"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/build"
ln -s "$(readlink -f "$RICA")" "$tmp/build/rica"
ln -s "$SRC/examples" "$tmp/examples"
ln -s "$SRC/scripts" "$tmp/scripts"  # rica plot finds its scripts beside the binary or in the tree
fail=0
# The page's commands: indented code lines (4 spaces) and inline spans that start with build/rica.
mapfile -t cmds < <(/usr/bin/python3 - "$PAGE" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
out = []
for line in page.splitlines():
    if line.startswith("    ") and line.strip():
        out.append(line.strip())
    else:
        out += [m for m in re.findall(r"`(build/rica [^`]+)`", line)]
for c in out:
    print(c)
PY
)
[ ${#cmds[@]} -ge 10 ] || { echo "FAIL: only ${#cmds[@]} commands found on $PAGE"; exit 1; }
cd "$tmp" || exit 1
for c in "${cmds[@]}"; do
  case "$c" in
    "bash scripts/"*) continue ;;  # the build itself (scripts/demo.sh): tested by the fresh-clone check
  esac
  start=$SECONDS
  if ! out=$(bash -c "$c" 2>&1 >/dev/null </dev/null); then
    echo "FAIL: exit $? from: $c"; printf '  %s\n' "$out" | tail -5; fail=1; continue
  fi
  # Every output file the command names (--json/--csv/--trace-events FILE) exists afterwards.
  for f in $(printf '%s\n' "$c" | grep -oE -- '--(json|csv|trace-events) [^ ]+' | cut -d' ' -f2); do
    [ -s "$f" ] || { echo "FAIL: $c: did not write $f"; fail=1; }
  done
  # Every --out directory says how it was made: a JSON with the command line (sweep, experiment:
  # provenance.json; os: os.json; os-stream: stream.json), --json or not.
  for d in $(printf '%s\n' "$c" | grep -oE -- '--out [^ ]+' | cut -d' ' -f2); do
    [ -d "$d" ] && grep -ls '"command_line"' "$d"/*.json > /dev/null || { echo "FAIL: $c: no provenance in $d"; fail=1; }
  done
  echo "ok ($((SECONDS - start)) s): $c"
done
[ "$fail" = 0 ] && echo "getting-started: all ${#cmds[@]} commands of the page ran as written"
exit $fail
