#!/usr/bin/env bash
# Issue 27: an option declared once (tests/option_knob.cpp: --test-knob, registered from the test's
# own file into the option table) appears everywhere options are derived from the table, with no
# other edit: --help of the commands it names (and not of the others), the recorded configuration
# of a run's JSON report, --config keys (dashed and snake_case), the echo that reproduces a run, the
# engine check (cycle engine only: refused and left out of the configuration on the async engine),
# and the option docs the Python keywords come from (test_option_table checks those in process).
# Usage: option_table_tests.sh <rica_knob>
set -u
RICA=${1:?path to rica_knob}
RICA=$(cd "$(dirname "$RICA")" && pwd)/$(basename "$RICA")
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failed() { echo "FAIL [$1]"; fail=1; }

# --help: the commands it names show it with its type, default and range; the others do not.
for c in run demo sweep; do
  "$RICA" $c --help > h.txt 2>&1 || failed "$c --help"
  grep -q -- "--test-knob UINT=3 *Test only: a knob that changes nothing \[1..9\]" h.txt ||
    failed "$c --help shows --test-knob: $(grep -- knob h.txt)"
done
for c in os bound topo "app sort"; do
  # shellcheck disable=SC2086
  "$RICA" $c --help > h.txt 2>&1
  ! grep -q -- "--test-knob" h.txt || failed "$c --help shows --test-knob, which it does not take"
done

# A cycle-engine run: recorded in the configuration, echoed, given or defaulted.
"$RICA" run torus:4x4 --engine cycle --cycles 200 --rate 0.05 --test-knob 7 --json r.json > /dev/null 2> echo.txt ||
  failed "run --test-knob 7: $(cat echo.txt)"
grep -q -- "^rica run torus:4x4 .*--test-knob 7" echo.txt || failed "the echo names --test-knob 7: $(cat echo.txt)"
python3 -c "import json; c = json.load(open('r.json'))['config']; assert c['test-knob'] == 7, c" ||
  failed "the configuration records test-knob 7"
"$RICA" run torus:4x4 --engine cycle --cycles 200 --rate 0.05 --json d.json > /dev/null 2>&1 || failed "run without it"
python3 -c "import json; c = json.load(open('d.json'))['config']; assert c['test-knob'] == 3, c" ||
  failed "the configuration records the default 3"
# The echo reproduces the run: pasted, the same configuration.
read -r -a words < echo.txt
"${words[@]/#rica/$RICA}" --json e.json --quiet > /dev/null 2>&1 || failed "the echo runs again"
python3 -c "
import json; a = json.load(open('r.json'))['config']; b = json.load(open('e.json'))['config']
assert a == b, (a, b)" || failed "the echo reproduces the configuration"

# --config: snake_case and dashed keys; a run's report seeds a sweep with it.
printf '{"topology": "torus:4x4", "engine": "cycle", "cycles": 200, "test_knob": 5}\n' > k.json
"$RICA" run --config k.json --quiet --json k.out.json > /dev/null 2>&1 || failed "run --config {test_knob: 5}"
python3 -c "import json; assert json.load(open('k.out.json'))['config']['test-knob'] == 5" ||
  failed "--config test_knob reached the run"
"$RICA" sweep --config r.json --rates 0.05 --no-plot --out sw --quiet --json sw.json > /dev/null 2>&1 ||
  failed "sweep --config r.json"
python3 -c "import json; assert json.load(open('sw.json'))['config']['test-knob'] == 7" ||
  failed "a run's report seeds the sweep's test-knob"

# The engine check: the async engine refuses it, one line, and leaves it out of the configuration.
err=$("$RICA" run torus:4x4 --test-knob 2 2>&1 >/dev/null); s=$?
[ $s = 2 ] && [ "$err" = "rica: error: --test-knob applies to the cycle engine only; add --engine cycle or drop --test-knob" ] ||
  failed "async refuses --test-knob: exit $s '$err'"
"$RICA" run torus:4x4 --packets 5 --json a.json > /dev/null 2>&1 || failed "async run"
python3 -c "import json; assert 'test-knob' not in json.load(open('a.json'))['config']" ||
  failed "an async run's configuration leaves test-knob out"
# The option's own parser: out of range, one line naming it.
err=$("$RICA" run torus:4x4 --engine cycle --test-knob 10 2>&1 >/dev/null); s=$?
[ $s = 2 ] && grep -q -- "--test-knob" <<< "$err" || failed "--test-knob 10 refused: exit $s '$err'"

# A default of one subcommand's own (tests/option_knob.cpp: --test-dial, 2 on run, 5 on sweep):
# each --help shows its own, and each run records the one it shows.
grep -q -- "--test-dial UINT=2 " <<< "$("$RICA" run --help)" || failed "run --help: --test-dial=2"
grep -q -- "--test-dial UINT=5 " <<< "$("$RICA" sweep --help)" || failed "sweep --help: --test-dial=5"
"$RICA" sweep torus:4x4 --rates 0.05 --cycles 300 --no-plot --out dial --quiet --json dial.json > /dev/null 2>&1 ||
  failed "sweep with the dial's default"
python3 -c "import json; assert json.load(open('dial.json'))['config']['test-dial'] == 5" ||
  failed "sweep records its own default 5"
python3 -c "import json; assert json.load(open('d.json'))['config']['test-dial'] == 2" ||
  failed "run records its default 2"

[ $fail = 0 ] && echo "option table tests passed"
exit $fail
