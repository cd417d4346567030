#!/usr/bin/python3
"""Draws the figures of a `rica experiment` run: one figure per traffic pattern, one curve per network.

Usage: scripts/plot_experiment.py POINTS.csv --config CONFIG.json [--out DIR]
Reads points.csv and config.json written by `rica experiment` and writes DIR/<pattern>.{png,svg} (':' and ',' of a pattern's parameters as '_')
(DIR defaults to the CSV's directory). The x axis follows the paper of the set-up (config.json
"x_axis"): "delivered" = packets delivered in the window, log scale (MDCE paper Figs 7-11);
"interval" = effective packet send interval, cycles per packet per PE = 1 / accepted, log scale
(RWC-1 Figs 6-7); "accepted" = accepted throughput, packets/PE/cycle (RWC-1 Figs 8-9). y = mean
latency in cycles, log scale. Hot-spot points are not joined (trials vary, as in the papers).
Tick labels never overlap: a log axis whose 1-2-5 labels would collide gets short ones (20k, 1M),
then decades only; should they still collide, a warning names the figure on stderr.
Needs matplotlib (Debian: python3-matplotlib, run with /usr/bin/python3).
"""
import argparse
import csv
import json
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rica_plot  # noqa: E402  (the figure style of every rica plot)

NAMES = {
    "uniform": "random (uniform) traffic",
    "quarter": "1/4 partition traffic",
    "hotspot": "5% hot-spot traffic",
    "mesh": "mesh emulation",
    "localized": "localized traffic",
}
AXES = {
    "delivered": ("packets delivered in the window", True),
    "interval": ("effective packet send interval (cycles per packet per PE)", True),
    "accepted": ("accepted throughput (packets/PE/cycle)", False),
}
MARKERS = "osD^v<>ph*"


def x_of(row, kind):
    if kind == "delivered":
        return float(row["delivered"])
    accepted = float(row["accepted"])
    if kind == "interval":
        return 1.0 / accepted if accepted > 0 else float("nan")
    return accepted


def short(v, _pos=None):
    """A short tick label: 20k, 1.5M; below 1,000 as rica_style's plain labels."""
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= scale:
            return f"{v / scale:g}{unit}"
    return rica_plot.rica_style._plain(v)


def overlapping(fig, axis):
    """True when two of `axis`'s drawn tick labels overlap or come within 3 pixels of each other."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    lo, hi = sorted(axis.get_view_interval())
    boxes = [t.label1.get_window_extent(renderer) for t in axis.get_major_ticks()
             if t.label1.get_visible() and t.label1.get_text() and lo <= t.get_loc() <= hi]
    horizontal = axis.axis_name == "x"
    boxes.sort(key=lambda b: b.x0 if horizontal else b.y0)
    return any((b.x0 if horizontal else b.y0) < (a.x1 if horizontal else a.y1) + 3 for a, b in zip(boxes, boxes[1:]))


def untangle_ticks(fig, ax, name):
    """Thins a log axis's tick labels until no two overlap: short labels, then decades only."""
    fig.tight_layout()  # the axes at their final width (save() lays out the same way)
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale != "log" or not overlapping(fig, axis):
            continue
        axis.set_major_formatter(ticker.FuncFormatter(short))
        if not overlapping(fig, axis):
            continue
        axis.set_major_locator(ticker.LogLocator(base=10))
        axis.set_minor_locator(ticker.LogLocator(base=10, subs=tuple(range(2, 10))))
        axis.set_minor_formatter(ticker.NullFormatter())
        if overlapping(fig, axis):
            print(f"plot_experiment.py: {name}: {axis.axis_name} tick labels overlap", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--config", required=True)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    with open(a.config) as f:
        config = json.load(f)
    rows = defaultdict(lambda: defaultdict(list))  # pattern -> network -> rows
    with open(a.csv, newline="") as f:
        for r in csv.DictReader(f):
            rows[r["pattern"]][r["network"]].append(r)
    if not rows:
        sys.exit(f"{a.csv}: no rows")
    order = [n["label"] for n in config["networks"]]
    spec = {n["label"]: n["spec"] for n in config["networks"]}  # legends name networks by spec
    table = {}  # (network, pattern) -> the table's row: bound and saturation (rica experiment writes it)
    table_csv = os.path.join(os.path.dirname(os.path.abspath(a.csv)), "table.csv")
    if os.path.exists(table_csv):
        with open(table_csv, newline="") as f:
            table = {(r["network"], r["pattern"]): r for r in csv.DictReader(f)}
    settings = rica_plot.rica_style.settings({k: config[k] for k in ("link_cycles", "timing", "arbitration",
                                                                      "buffer_words", "cycles") if k in config})
    style = rica_plot.rica_style
    for pattern, nets in rows.items():
        kind = config.get("x_axis", {}).get(pattern, "delivered")
        xlabel, logx = AXES[kind]
        fig, ax = rica_plot.figure()
        names = sorted(nets, key=lambda n: order.index(n) if n in order else len(order))
        styles = style.network_styles(names, specs=spec)
        marked = False
        for net in names:
            rs = nets[net]
            st = styles[net]
            kw = dict(marker=st["marker"], ms=3.5, color=st["color"], label=f"{net} = {spec.get(net, net)}")
            if pattern.startswith("hotspot"):  # every trial, not joined
                ax.plot([x_of(r, kind) for r in rs], [float(r["latency_mean"]) for r in rs], ls="none", **kw)
            else:  # one point per rate: the mean over its seeds, 95% CI error bars with several
                by_rate = defaultdict(list)
                for r in rs:
                    by_rate[float(r["rate"])].append(r)
                xs, ys, es = [], [], []
                for rate in sorted(by_rate):
                    g = by_rate[rate]
                    vy = [float(r["latency_mean"]) for r in g]
                    n, my = len(vy), sum(vy) / len(vy)
                    sd = (sum((v - my) ** 2 for v in vy) / (n - 1)) ** 0.5 if n > 1 else 0.0
                    xs.append(sum(x_of(r, kind) for r in g) / n)
                    ys.append(my)
                    es.append(rica_plot.t95(n) * sd / n ** 0.5 if n > 1 else 0.0)
                ax.errorbar(xs, ys, yerr=es if any(es) else None, lw=1.2, capsize=2, ls=st["linestyle"], **kw)
            t = table.get((net, pattern))
            if not t:
                continue
            # The channel-load bound on this axis: a triangle on the top edge and a faint line.
            bound = float(t["bound"]) if t.get("bound") else 0.0
            acc = [float(r["accepted"]) for r in rs if float(r["accepted"]) > 0]
            scale = {"accepted": 1.0, "interval": None,
                     "delivered": (sum(float(r["delivered"]) / float(r["accepted"]) for r in rs
                                       if float(r["accepted"]) > 0) / len(acc)) if acc else None}[kind]
            xb = (1.0 / bound if kind == "interval" else bound * scale) if bound > 0 and (scale or kind == "interval") else None
            if xb and not pattern.startswith("mesh"):
                ax.axvline(xb, color=st["color"], lw=0.8, ls=":", alpha=0.6)
                ax.plot([xb], [1.0], marker="v", ms=7, color=st["color"], transform=ax.get_xaxis_transform(),
                        clip_on=False, ls="none")
                marked = True
            if not pattern.startswith("hotspot") and t.get("offered_at_saturation"):
                sat_rate = min(by_rate, key=lambda r: abs(float(by_rate[r][0]["offered"]) - float(t["offered_at_saturation"])))
                i = sorted(by_rate).index(sat_rate)
                ax.plot([xs[i]], [ys[i]], marker="o", ms=11, mfc="none", mec=st["color"], mew=1.4, ls="none")
                marked = True
        if logx:
            ax.set_xscale("log")
        ax.set_yscale("log")
        style.finish_log_axes(ax)
        if marked:
            ax.plot([], [], marker="v", color="0.3", ls=":", label="channel-load bound (rica bound)")
            ax.plot([], [], marker="o", ms=9, mfc="none", mec="0.3", ls="none", label="saturation (largest accepted)")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("mean latency (cycles)")
        fig_name = config.get("figures", {}).get(pattern, "")
        style.title(ax, f"{config['experiment']}: {NAMES.get(pattern, pattern)}" + (f" (paper {fig_name})" if fig_name else "")
                    + (f"\n{settings}" if settings else ""))
        style.legend(ax, "network = spec")
        untangle_ticks(fig, ax, pattern)
        rica_plot.save(fig, out, pattern)
    print(f"figures written to {out}")


if __name__ == "__main__":
    main()
