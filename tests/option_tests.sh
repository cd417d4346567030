#!/usr/bin/env bash
# Issue 27: mistakes get the nearest name, config files take any command's report, help shows the
# defaults a run records. For every subcommand: a misspelt option and a misspelt registry name get
# "did you mean"; snake_case config keys; a run report seeds sweep (and the others); the defaults
# of --help equal the configuration the command records. Usage: option_tests.sh <rica>
set -u
RICA=${1:?path to rica}
RICA=$(cd "$(dirname "$RICA")" && pwd)/$(basename "$RICA")
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failed() { echo "FAIL [$1]"; fail=1; }

# refused <expected text> <what> <args...>: exit 2, one line on stderr containing the text.
refused() {
  local want=$1 what=$2; shift 2
  local err s
  err=$("$RICA" "$@" 2>&1 >/dev/null); s=$?
  [ $s = 2 ] && [ "$(wc -l <<< "$err")" = 1 ] && grep -qF -- "$want" <<< "$err" ||
    failed "$what: exit $s, '$err' (wanted '$want')"
}

# ---- 1. a misspelt option: every leaf subcommand names the nearest option ----
JOBS="--jobs poisson:jobs=2,rate=1,size=2,length=1"
leaves=("list" "topo torus:4x4" "route torus:4x4 0 5" "run torus:4x4" "demo" "sweep torus:4x4" "os torus:4x4"
        "os-stream torus:4x4 $JOBS" "app sort -t torus:4x4" "app stencil -t torus:4x4" "app run reduce -t torus:4x4"
        "experiment rwc1" "bound torus:4x4" "partition torus:4x4" "embed ring torus:4x4" "plot links x.json"
        "plot latency x.json" "plot sweep x.csv" "plot os x.csv" "plot telemetry x.csv" "plot trace x.json" "report x.json")
# Every leaf subcommand `rica --help` (and `rica app|plot --help`) lists is checked here: a new
# subcommand fails this test until it is added above.
subcommands() { "$RICA" "$@" --help | sed -n '/^Subcommands:/,$p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p'; }
for top in $(subcommands); do
  inner=$(subcommands "$top")
  for leaf in ${inner:-""}; do
    name="$top${leaf:+ $leaf}"
    case "$name" in record | replay) continue ;; esac  # their options and refusals: tests/replay_tests.sh
    printf '%s\n' "${leaves[@]}" | grep -q "^$name\( \|$\)" || failed "rica $name: not in option_tests.sh's list of subcommands"
  done
done
for c in "${leaves[@]}"; do
  read -r -a w <<< "$c"
  path="rica ${w[0]}"; case "${w[0]}" in app|plot) path="$path ${w[1]}";; esac
  refused "unknown option '--quite' of '$path'; did you mean '--quiet'? ($path --help)" "rica $c --quite" "${w[@]}" --quite
done
refused "unknown subcommand 'rnu' of 'rica'; did you mean 'run'? (rica --help)" "misspelt subcommand" rnu torus:4x4
refused "unknown subcommand 'lniks' of 'rica plot'; did you mean 'links'? (rica plot --help)" "misspelt plot kind" \
  plot lniks x.json
refused "unexpected arguments 'x' 'y' of 'rica list' (rica list --help)" "words no positional takes" list x y

# ---- 2. a misspelt registry name: the nearest name of the registry, then the accepted ones ----
refused "unknown topology 'torsu'; did you mean 'torus'? valid:" "topo" topo torsu:4x4
refused "did you mean 'torus'?" "route" route torsu:4x4 0 5
refused "did you mean 'torus'?" "run topology" run torsu:4x4
refused "unknown traffic pattern 'unifrom'; did you mean 'uniform'? valid: uniform" "run traffic" \
  run torus:4x4 --traffic unifrom
refused "unknown application 'reduec'; did you mean 'reduce'?" "run app" run torus:4x4 --app reduec
refused "did you mean 'uniform'?" "demo traffic" demo --traffic unifrom
refused "did you mean 'uniform'?" "sweep traffic" sweep torus:4x4 --traffic unifrom --no-plot
refused "did you mean 'hypercube'?" "sweep topology" sweep hypercub:4 --no-plot
refused "unknown switch policy 'dran'; did you mean 'drain'?" "os policy" os torus:4x4 --policy dran
refused "did you mean 'uniform'?" "os job" os torus:4x4 --job unifrom --job uniform
refused "did you mean 'torus'?" "app sort topology" app sort -t torsu:4x4
refused "did you mean 'torus'?" "app stencil topology" app stencil -t torsu:4x4
refused "unknown application 'reduec'; did you mean 'reduce'?" "app run" app run reduec -t torus:4x4
refused "unknown experiment 'mdce-dleta'; did you mean 'mdce-delta'?" "experiment" experiment mdce-dleta
refused "did you mean 'tornado'?" "bound traffic" bound torus:4x4 --traffic tornadoo
refused "did you mean 'torus'?" "partition" partition torsu:4x4 --parts 2
refused "unknown guest 'tre'; did you mean 'tree'?" "embed guest" embed tre torus:4x4
refused "unknown routing 'adaptve'; did you mean 'adaptive'?" "run routing" run torus:4x4 --routing adaptve
refused "unknown engine 'cylce'; did you mean 'cycle'?" "run engine" run torus:4x4 --engine cylce
refused "--alloc: unknown allocator 'budy'; did you mean 'buddy'? valid:" "os-stream allocator" \
  os-stream torus:4x4 $JOBS --alloc budy
refused "unknown scheduler 'fcsf'; did you mean 'fcfs'?" "os-stream scheduler" os-stream torus:4x4 $JOBS --sched fcsf
refused "unknown switch policy 'dran'; did you mean 'drain'?" "os-stream policy" os-stream torus:4x4 $JOBS --policy dran
refused "did you mean 'torus'?" "os-stream topology" os-stream torsu:4x4 $JOBS
refused "unknown job stream 'poisso'; did you mean 'poisson'?" "os-stream job stream" os-stream torus:4x4 --jobs poisso:jobs=2
refused "did you mean 'uniform'?" "os-stream job" os-stream torus:4x4 $JOBS --job unifrom
refused "did you mean 'torus'?" "embed host" embed ring torsu:4x4
refused "did you mean 'torus'?" "app run topology" app run reduce -t torsu:4x4
# (list, plot and report name no registry entry: their misspelt names are the subcommand and plot kind above)
# nothing near: no suggestion, the list as before
refused "unknown topology 'nosuch'; valid: " "no near name" topo nosuch:3

# ---- exclusive options named ----
refused "--rate and --rates are one option" "sweep --rates --rate" sweep torus:4x4 --rates 0.1 --rate 0.2 --no-plot
refused "--rate given 2 times" "run --rate twice" run torus:4x4 --rate 0.1 --rate 0.2
refused "--quiet" "--quiet with --progress" sweep torus:4x4 --quiet --progress --no-plot

# ---- 3. config files: snake_case keys like dashed ones, on every command that computes ----
printf '{"topology": "torus:4x4", "engine": "cycle", "buffer_words": 16, "packet_words": "2:0", "cycles": 300}\n' > snake.json
"$RICA" run --config snake.json --quiet --json s.json > /dev/null || failed "run --config with snake_case keys"
python3 -c "
import json; c = json.load(open('s.json'))
assert c['model']['buffer_words'] == 16 and c['config']['buffer-words'] == 16 and c['config']['packet-words'] == '2:0', c['config']
" || failed "snake_case keys did not reach the run"
printf 'buffer_words = 16\ncycles = 300\n' > snake.toml
"$RICA" run torus:4x4 --engine cycle --config snake.toml --quiet --json t.json > /dev/null &&
  python3 -c "import json; assert json.load(open('t.json'))['model']['buffer_words'] == 16" ||
  failed "TOML config with snake_case keys"
# snake <key> <JSON value> <words...>: the command with {"<key>": value} records the dashed key.
snake() {
  local key=$1 value=$2; shift 2
  printf '{"%s": %s}\n' "$key" "$value" > k.json
  "$RICA" "$@" --config k.json --quiet --json k.out.json > /dev/null 2> err.txt || { failed "rica $* --config {$key}: $(cat err.txt)"; return; }
  python3 -c "
import json, sys; c = json.load(open('k.out.json'))['config']; k = '${key//_/-}'
sys.exit(0 if k in c and c[k] == json.loads('$value') else 1)" || failed "rica $*: {$key: $value} not recorded as ${key//_/-}"
}
snake all_pairs true topo torus:4x4
snake all_pairs true bound torus:4x4
snake buffer_words 16 sweep torus:4x4 --rates 0.1 --cycles 300 --no-plot --out sk
snake buffer_words 16 os torus:4x4 --packets 5 --slice 50 --rate 0.2 --no-plot --out ok
snake keys_per_packet 2 app sort -t torus:4x4
snake values_per_packet 1 app stencil -t torus:4x4
snake link_cycles '"words"' run torus:4x4 --engine cycle --cycles 300
snake buffer_words 16 demo --packets 2
snake buffer_words 16 app run reduce -t torus:4x4
snake save_rate 2 os-stream torus:4x4 $JOBS --no-plot --out sk2
snake io_hop_cycles 2 os-stream torus:4x4 $JOBS --no-plot --out sk3
# experiment: its only option of two words is presentation (not recorded): its effect, no figure
printf '{"no_plot": true}\n' > k.json
"$RICA" experiment rwc1 --quick --networks CCCB --patterns uniform --cycles 100 --out sk4 --config k.json --quiet \
  > /dev/null 2>&1 && [ -s sk4/points.csv ] && [ -z "$(find sk4 -name '*.png')" ] ||
  failed "rica experiment --config {no_plot: true}: not taken"
# (list, route, partition, embed, plot and report have no option of two words: nothing to spell in snake_case)
printf '{"bufer_words": 16}' > typo.json
refused "--config: 'bufer_words' is not an option of 'rica run'; did you mean 'buffer-words'?" "config typo" \
  run torus:4x4 --config typo.json

# ---- 4. a run report seeds sweep (and every other command): foreign keys skipped, listed once ----
"$RICA" run torus:4x4 --engine cycle --rate 0.07 --cycles 400 --seed 9 --quiet --json run.json > /dev/null ||
  failed "run --json"
err=$("$RICA" sweep --config run.json --out sw --no-plot --quiet --json sw.json 2>&1 >/dev/null); s=$?
[ $s = 0 ] || failed "sweep --config run.json: exit $s '$err'"
[ "$(wc -l <<< "$err")" = 1 ] && grep -q "skipped .* that 'rica sweep' does not take: .*engine" <<< "$err" ||
  failed "sweep --config run.json: the skipped keys on one line: '$err'"
python3 -c "
import json; r = json.load(open('run.json')); s = json.load(open('sw.json'))
assert s['config']['topology'] == [r['config']['topology']] and s['config']['rate'] == [0.07] or s['config']['rate'] == 0.07, s['config']
assert s['config']['cycles'] == 400 and s['config']['seed'] == 9, s['config']
" || failed "sweep seeded by a run report: the run's topology, rate, cycles and seed"
refused "(--strict-config)" "sweep --strict-config" sweep --config run.json --strict-config --no-plot --out sw2
"$RICA" sweep torus:4x4 --rates 0.1 --cycles 300 --quiet --no-plot --out sw3 --json sweep.json > /dev/null ||
  failed "sweep --json"
"$RICA" topo torus:4x4 --quiet --json topo.json > /dev/null || failed "topo --json"
for c in "run" "os --packets 5 --slice 50 --rate 0.2 --no-plot --out os4" "bound" "topo" "partition --parts 2" \
         "sweep --no-plot --out sw4" "route 0 5" "embed ring" "os-stream $JOBS --no-plot --out oss4" "app sort" \
         "app stencil" "app run reduce" "demo --packets 2" "list" \
         "experiment rwc1 --quick --networks CCCB --patterns uniform --cycles 100 --no-plot --out ex4"; do
  read -r -a w <<< "$c"
  for report in run.json sweep.json topo.json; do  # positional "topology" and "spec" fill each other
    err=$("$RICA" "${w[@]}" --config "$report" --quiet 2>&1 >/dev/null); s=$?
    [ $s = 0 ] || failed "rica $c --config $report: exit $s '$err'"
  done
done
# The report's topology reaches the command (route and embed: the command line gives the other positionals).
for c in "route 0 5" "embed ring" "app sort" "bound" "partition --parts 2"; do
  read -r -a w <<< "$c"
  "$RICA" "${w[@]}" --config run.json --quiet --json seeded.json > /dev/null 2>&1 &&
    grep -q '"torus:4x4"' seeded.json || failed "rica $c --config run.json: the run's topology not used"
done
# plot and report read the file named on their command line; the run's keys are skipped.
"$RICA" run torus:4x4 --packets 2 --quiet --json pr.json --csv pr.csv > /dev/null || failed "run for plot/report"
for c in "report pr.json --out rep"; do
  read -r -a w <<< "$c"
  err=$("$RICA" "${w[@]}" --config run.json --quiet 2>&1 >/dev/null); s=$?
  [ $s = 0 ] && grep -q "skipped" <<< "$err" || failed "rica $c --config run.json: exit $s '$err'"
done

# ---- 5. help defaults are the recorded configuration ----
# compare <report.json> <help text>: every option whose --help shows =DEFAULT and which the report's
# config records (not given on the command line) has that value.
compare() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, os, re, sys
report, helptext, given = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), set(sys.argv[3].split())
config, bad, seen = report["config"], [], 0
for m in re.finditer(r"^\s+(?:-\w, )?--([\w-]+)(?:,--[\w-]+)* [^\s=]+=((?:\S+ )+\.\.\.|\S+)", helptext, re.M):
    key, default = m.group(1), m.group(2).removesuffix(" ...").replace(" ", ",")
    if key == "threads" and default == "0":  # 0 = all cores: recorded as the threads used
        default = str(os.cpu_count())
    if key in given or key not in config:
        continue
    seen += 1
    value = config[key]
    value = ",".join(str(v) for v in value) if isinstance(value, list) else str(value)
    try:
        same = float(value) == float(default)
    except ValueError:
        same = value == default
    if not same:
        bad.append(f"--{key}: help {default}, recorded {value}")
if bad or seen == 0:
    print("; ".join(bad) or "no default compared")
    sys.exit(1)
PY
}
check_help() {  # <name> <help words> -- <run words>
  local name=$1; shift
  local hw=() rw=()
  while [ "$1" != "--" ]; do hw+=("$1"); shift; done; shift
  rw=("$@")
  "$RICA" "${hw[@]}" --help > help.txt
  "$RICA" "${rw[@]}" --quiet --json h.json > /dev/null 2>err.txt || { failed "help defaults: rica ${rw[*]}: $(cat err.txt)"; return; }
  local given; given=$(printf '%s\n' "${rw[@]}" | sed -n 's/^--//p' | tr '\n' ' ')
  out=$(compare h.json help.txt "$given") || failed "help defaults of rica $name: $out"
}
check_help run run -- run torus:4x4 --engine cycle
check_help sweep sweep -- sweep torus:4x4 --rate 0.1 --no-plot --out hs
check_help os os -- os torus:4x4 --packets 5 --slice 50 --rate 0.2 --no-plot --out ho
check_help bound bound -- bound torus:4x4
check_help topo topo -- topo torus:4x4
check_help partition partition -- partition torus:4x4 --parts 2
check_help "app sort" app sort -- app sort -t torus:4x4
check_help "app stencil" app stencil -- app stencil -t torus:4x4
check_help embed embed -- embed ring torus:4x4
check_help "app run" app run -- app run reduce -t torus:4x4
check_help demo demo -- demo --packets 2
check_help os-stream os-stream -- os-stream torus:4x4 $JOBS --no-plot --out hss
check_help experiment experiment -- experiment rwc1 --quick --networks CCCB --patterns uniform --cycles 100 --no-plot --out hex
check_help route route -- route torus:4x4 0 5
# (list, plot and report show no default that a configuration records)
# The sweep's warm-up in particular: help, CSV and JSON say 1000 (a tenth of the 10000 cycles).
grep -qE -- "--warmup UINT=1000 " <<< "$("$RICA" sweep --help)" || failed "rica sweep --help: warm-up not 1000"

# ---- 6. help that describes a file names what the file holds ----
# --trace's help lists the trace's columns: the header the run writes (both from rica::trace_columns).
for c in "run torus:4x4 --packets 2" "demo --packets 2"; do
  read -r -a w <<< "$c"
  help_cols=$("$RICA" "${w[0]}" --help | sed -n 's/^ *--trace FILE .*per delivered packet (\([^)]*\)).*/\1/p')
  header=$("$RICA" "${w[@]}" --quiet --trace - | head -1)
  [ -n "$header" ] && [ "$help_cols" = "$header" ] ||
    failed "rica ${w[0]} --help: --trace lists '$help_cols', the trace's header is '$header'"
done

echo "option_tests: done"
exit $fail
