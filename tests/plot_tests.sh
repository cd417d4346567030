#!/usr/bin/env bash
# Issue 30 (figures): every topology family's link heat map is drawn in its layout (grid, stage or
# Graphviz graph), beside the JSON it comes from, utilisation on a 0-1 scale; a file that is not a
# run report is one line and exit 2; the latency histogram/CDF; `rica sweep --rate auto` finds
# saturation on a small torus near `rica bound`'s channel-load bound, with its summary in the
# CSV/JSON and the bound and saturation marked on the figures; docs/validation's figures regenerate
# from its CSVs in the one style.
# Usage: plot_tests.sh RICA   (skipped, exit 0, without matplotlib)
set -u
RICA=$(realpath "${1:?path to rica}")
PLOTPY=python3; [ -x /usr/bin/python3 ] && PLOTPY=/usr/bin/python3  # the interpreter rica plots with
if ! "$PLOTPY" -c "import matplotlib" 2> /dev/null; then echo "plot tests skipped: no matplotlib"; exit 0; fi
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
failed() { echo "FAIL [$1]"; fail=1; }

# ---- heat maps: one network of every family, in its layout --------------------------------------
# spec | layout
FAMILIES="
mesh:4x4|grid
torus:4x4|grid
torus:3x3x2|grid
kary:k=3,n=2|grid
mesh8:4|grid
torus8:4|grid
mxx:8|grid
msn:4x4|grid
cbanyan:n=3|stage
ccc:n=3|stage
comega:n=3|stage
dce:n=4,delta=2|stage
mdce:B=1,C=1,P=1,n=3|stage
cccb:n=2|stage
cb2:n=3|stage
omega:4|stage
fattree:4|stage
hypercube:4|graph
debruijn:4|graph
ubruijn:4|graph
shuffle:4|graph
dragonfly:h=2|graph
hyperx:4x4,T=2|graph
slimfly:q=5|graph
product:torus:4*mesh:3x2|graph
hier:mesh:3x3/debruijn:3|graph
file:$HERE/data/irregular12.txt|graph
"
i=0
while IFS='|' read -r spec layout; do
  [ -n "$spec" ] || continue
  spec=${spec//\$HERE/$HERE}
  i=$((i + 1))
  d="$TMP/h$i"
  mkdir -p "$d"
  "$RICA" run "$spec" --engine cycle --rate 0.05 --cycles 600 --quiet --json "$d/r.json" --csv "$d/r.csv" > /dev/null \
    || { failed "run $spec"; continue; }
  # No --out: the figures go beside the JSON, not into the working directory.
  got=$(cd "$TMP" && "$RICA" plot links "$d/r.json" 2>&1) || { failed "plot links $spec: $got"; continue; }
  case "$got" in *"($layout layout)"*) ;; *) failed "plot links $spec: want the $layout layout, got: $got";; esac
  [ -e "$TMP/r.links.png" ] && failed "plot links $spec wrote into the working directory"
  "$PLOTPY" - "$d" <<'PY' || failed "plot links $spec: PNG 1600 px, SVG, links.dot utilisation in [0, 1]"
import os, re, struct, sys
d = sys.argv[1]
with open(os.path.join(d, "r.links.png"), "rb") as f:
    assert struct.unpack(">I", f.read(24)[16:20])[0] == 1600
assert os.path.getsize(os.path.join(d, "r.links.svg")) > 0
u = [float(x) for x in re.findall(r"utilisation ([0-9.]+)", open(os.path.join(d, "r.links.dot")).read())]
assert u and all(0.0 <= x <= 1.0 for x in u), u[:5]
PY
done <<< "$FAMILIES"

# Utilisation is busy cycles / cycles run: a saturated torus has a link near 1, an idle one near 0.
"$RICA" run torus:8x8 --engine cycle --rate 1 --packets 30 --quiet --json "$TMP/sat.json" --csv "$TMP/sat.csv" \
  > /dev/null && "$RICA" plot links "$TMP/sat.json" --quiet > /dev/null || failed "saturated torus heat map"
"$PLOTPY" - "$TMP/sat.links.dot" <<'PY' || failed "saturated torus: busiest link utilisation in (0.7, 1]"
import re, sys
u = [float(x) for x in re.findall(r"utilisation ([0-9.]+)", open(sys.argv[1]).read())]
assert 0.7 < max(u) <= 1.0, max(u)
PY

# ---- colours: one per network family, far apart, the same network alike in every figure ---------
"$PLOTPY" - "$HERE/../scripts" "$HERE/../docs/experiments" <<'PY' || failed "colours fixed and unique per network"
import csv, glob, json, os, sys
import matplotlib
matplotlib.use("Agg")
sys.path.insert(0, sys.argv[1])
import numpy as np
from matplotlib import colors as mc
import rica_style as S
def lab(h):  # sRGB -> CIELAB (D65)
    rgb = np.array(mc.to_rgb(h))
    rgb = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ rgb
    f = np.cbrt(xyz / np.array([0.95047, 1.0, 1.08883]))
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])
fams = list(S.FAMILY_COLOURS.items())
for i, (a, ca) in enumerate(fams):
    assert lab(ca)[0] <= 80, (a, ca)  # not too light on white
    for b, cb in fams[i + 1:]:
        d = np.linalg.norm(lab(ca) - lab(cb))
        assert d >= 23, (a, b, round(d, 1))
# Every figure of docs/experiments: its networks' colours are unique (adaptive variants of one
# network share it, drawn dashed), and a network's colour is the same in every figure it is in.
seen = {}
for cfg in glob.glob(os.path.join(sys.argv[2], "*", "config.json")):
    nets = json.load(open(cfg)).get("networks")
    if not nets:
        continue
    specs = {n["label"]: n["spec"] for n in nets}
    st = S.network_styles(list(specs), specs=specs)
    by_colour = {}
    for label, s in st.items():
        base = label.replace("Adaptive ", "").replace(" adaptive", "")
        by_colour.setdefault(s["color"], set()).add((specs[label], base))
        seen.setdefault(specs[label], set()).add(s["color"])
    for colour, who in by_colour.items():
        assert len({spec for spec, _ in who}) == 1, (cfg, colour, who)
assert {"torus8:32", "debruijn:10", "mxx:32", "omega:10"} <= set(seen), sorted(seen)  # the 13-network figure
# One network alone in its family keeps the family colour in every figure.
for spec, colours in seen.items():
    fam = S.family(spec)
    if fam in S.FAMILY_COLOURS and spec.split(":")[0] not in ("dce",):
        assert colours == {S.FAMILY_COLOURS[fam]}, (spec, colours)
PY

# ---- docs/validation (rica against BookSim2): its figures redrawn from the committed CSVs by the
# script that makes them, 1600 px PNG and SVG, exactly the committed set; rica drawn in the
# network's family colour, the tools told apart by colour shade, line style and marker.
"$PLOTPY" - "$HERE/../scripts" "$HERE/../docs/validation" "$TMP/val" <<'PY' || failed "docs/validation figures"
import os, struct, sys
sys.path[:0] = [sys.argv[1], os.path.join(sys.argv[1], "validation")]
import booksim_compare as B, rica_style as S
src, out = sys.argv[2], sys.argv[3]
os.makedirs(out)
figs = B.plots(B.by_case(B.read_csv(os.path.join(src, "rica.csv"))),
               B.by_case(B.read_csv(os.path.join(src, "booksim.csv"))), out)
assert figs == B.figure_names(), figs
for _, name in figs:
    for d in (out, src):
        with open(os.path.join(d, name + ".png"), "rb") as f:
            assert struct.unpack(">I", f.read(24)[16:20])[0] == 1600, (d, name)
    assert os.path.getsize(os.path.join(out, name + ".svg")) > 0, (out, name)  # docs/ commits only the PNGs its pages show
assert sorted(f for f in os.listdir(src) if f.endswith(".png")) == sorted(n + ".png" for _, n in figs)
for key, net in B.NETWORKS.items():
    st = {t: S.tool_style(t, net["rica"]) for t in S.TOOL_STYLE}
    assert st["rica"]["color"] == S.FAMILY_COLOURS[S.family(net["rica"])], (key, st)
    for k in ("color", "linestyle", "marker"):
        assert len({x[k] for x in st.values()}) == len(st), (key, k, st)
    assert st["rica"]["color"] in open(os.path.join(out, f"validation_{key}.svg")).read(), key
PY

# ---- every figure of docs/experiments redrawn: no two tick labels overlap --------------------------
# (the 16K figures' "100,000200,000" x labels): each set-up run redrawn from its committed points by
# plot_experiment.py, every figure checked for colliding tick labels just before it is saved.
"$PLOTPY" - "$HERE/../scripts" "$HERE/../docs/experiments" "$TMP/redraw" <<'PY' || failed "docs/experiments figures: tick labels overlap"
import glob, json, os, shutil, sys
import matplotlib
matplotlib.use("Agg")
scripts, docs, tmp = sys.argv[1:4]
sys.path.insert(0, scripts)
import rica_plot, plot_experiment
save, bad, drawn = rica_plot.save, [], []
def checked(fig, out, name):
    fig.tight_layout()
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            b = sorted((t.label1.get_window_extent(r) for t in axis.get_major_ticks()
                        if t.label1.get_visible() and t.label1.get_text() and lo <= t.get_loc() <= hi),
                       key=lambda e: e.x0 if axis.axis_name == "x" else e.y0)
            for u, v in zip(b, b[1:]):
                if (v.x0 < u.x1) if axis.axis_name == "x" else (v.y0 < u.y1):
                    bad.append(f"{out} {name}: {axis.axis_name} labels collide")
    drawn.append(name)
    save(fig, out, name)
rica_plot.save = checked
runs = [os.path.dirname(c) for c in glob.glob(os.path.join(docs, "**", "config.json"), recursive=True)
        if os.path.exists(os.path.join(os.path.dirname(c), "table.csv"))]
assert any(r.endswith("modern-16k") for r in runs), runs
for i, d in enumerate(sorted(runs)):
    out = os.path.join(tmp, str(i))
    os.makedirs(out)
    for f in ("points.csv", "config.json", "table.csv"):
        shutil.copy(os.path.join(d, f), out)
    sys.argv = ["plot_experiment.py", os.path.join(out, "points.csv"), "--config", os.path.join(out, "config.json")]
    plot_experiment.main()
assert len(drawn) >= len(runs), drawn
assert not bad, bad
PY

# ---- a file that is not a run report: one line naming it and what was expected, exit 2 ----------
"$RICA" sweep torus:4x4 --rate 0.05,0.1 --cycles 300 --out "$TMP/sw" --no-plot --quiet > /dev/null || failed "sweep"
printf '{"points": []}\n' > "$TMP/notrun.json"
for c in "links $TMP/sw/sweep.csv" "links $TMP/notrun.json" "latency $TMP/sw/sweep.csv" "latency $TMP/notrun.json"; do
  read -r -a w <<< "$c"
  err=$("$RICA" plot "${w[@]}" 2>&1 > /dev/null); st=$?
  [ "$st" = 2 ] || failed "plot $c: exit $st, want 2"
  [ "$(grep -c . <<< "$err")" = 1 ] || failed "plot $c: want one line: $err"
  case "$err" in *Traceback*|*matplotlib*) failed "plot $c: traceback or install hint: $err";; esac
  case "$err" in *"${w[1]}"*"expected "*) ;; *) failed "plot $c names the file and what it expected: $err";; esac
done

# ---- latency histogram and CDF ------------------------------------------------------------------
"$RICA" plot latency "$TMP/sat.json" --quiet > /dev/null && [ -s "$TMP/sat.latency.png" ] && [ -s "$TMP/sat.latency.svg" ] \
  || failed "plot latency"

# ---- sweep --rate auto: saturation found near the channel-load bound -----------------------------
# torus:4x4, uniform traffic, link time = degree: `rica bound` says 0.15625 packets/PE/cycle; the
# cycle engine's largest accepted throughput is 0.82 of it (4,000 cycles, seed 1; the tolerance
# below is 0.75-1.05; tests/test_channel_load.cpp measures how far the engine stays below bounds).
"$RICA" sweep torus:4x4 --rate auto --cycles 4000 --out "$TMP/auto" --json "$TMP/auto.json" --no-plot > "$TMP/auto.txt" \
  2> /dev/null || failed "sweep --rate auto"
grep -q "^torus:4x4: zero-load latency .* saturates at offered .*channel-load bound" "$TMP/auto.txt" \
  || { failed "sweep --rate auto prints the summary"; cat "$TMP/auto.txt"; }
bound=$("$RICA" bound torus:4x4 --json - --quiet | "$PLOTPY" -c "import json,sys; print(json.load(sys.stdin)['bounds'][0]['bound'])")
"$PLOTPY" - "$TMP/auto.json" "$TMP/auto/sweep_summary.csv" "$bound" <<'PY' || failed "sweep --rate auto: saturation within tolerance of rica bound"
import csv, json, sys
j = json.load(open(sys.argv[1]))
bound = float(sys.argv[3])
s = j["summary"][0]
assert j["rates"] == "auto"
assert abs(s["bound"] - bound) < 1e-9, (s["bound"], bound)
assert s["saturated"], s
# Tolerance: saturation throughput 75-105 % of the bound; the detected point at most 1.6 x the bound.
assert 0.75 * bound <= s["saturation"] <= 1.05 * bound, (s["saturation"], bound)
assert s["saturation_offered"] <= 1.6 * bound + 1e-9, s
offered = sorted({p["offered"] for p in j["points"]})
assert offered[0] < 0.05 * bound and offered[-1] >= 1.5 * bound, offered  # spaced up to past the bound
assert len(offered) > 11, offered  # the 11-point grid plus points refined near the knee
row = next(csv.DictReader(open(sys.argv[2])))
assert row["topology"] == "torus:4x4" and row["saturated"] == "1" and float(row["bound"]) == float(f"{bound:.6g}")
PY
"$RICA" plot sweep "$TMP/auto/sweep.csv" --quiet > /dev/null && [ -s "$TMP/auto/latency_vs_accepted.png" ] \
  || failed "plot sweep with the summary's marks"
# A pattern without a traffic matrix has no bound: --rate auto is refused, one line, exit 2.
err=$("$RICA" sweep torus:4x4 --rate auto --traffic "trace:$HERE/../examples/trace8.csv" --no-plot --out "$TMP/a2" 2>&1 >/dev/null); st=$?
[ "$st" = 2 ] && [ "$(grep -c . <<< "$err")" = 1 ] && grep -q -- "--rate" <<< "$err" \
  || failed "sweep --rate auto without a bound: exit $st: $err"
err=$("$RICA" sweep torus:4x4 --rate autox --no-plot 2>&1 >/dev/null); st=$?
[ "$st" = 2 ] && grep -q "or auto" <<< "$err" || failed "sweep --rate autox: exit $st: $err"

exit $fail
