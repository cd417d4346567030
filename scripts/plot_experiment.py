#!/usr/bin/python3
"""Draws the figures of a `rica experiment` run: one figure per traffic pattern, one curve per network.

Usage: scripts/plot_experiment.py POINTS.csv --config CONFIG.json [--out DIR]
Reads points.csv and config.json written by `rica experiment` and writes DIR/<pattern>.{png,svg} (':' and ',' of a pattern's parameters as '_')
(DIR defaults to the CSV's directory). The x axis follows the paper of the set-up (config.json
"x_axis"): "delivered" = packets delivered in the window, log scale (MDCE paper Figs 7-11);
"interval" = effective packet send interval, cycles per packet per PE = 1 / accepted, log scale
(RWC-1 Figs 6-7); "accepted" = accepted throughput, packets/PE/cycle (RWC-1 Figs 8-9). y = mean
latency in cycles, log scale. Hot-spot points are not joined (trials vary, as in the papers).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rica_plot  # noqa: E402  (the figure style of every rica plot)
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

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
    settings = ", ".join(f"{k} {config[k]}" for k in ("timing", "link_cycles", "buffer_words", "cycles")
                         if k in config)
    for pattern, nets in rows.items():
        kind = config.get("x_axis", {}).get(pattern, "delivered")
        xlabel, logx = AXES[kind]
        fig, ax = rica_plot.figure()
        for i, net in enumerate(sorted(nets, key=lambda n: order.index(n) if n in order else len(order))):
            rs = nets[net]
            marker = MARKERS[i % len(MARKERS)]
            if pattern.startswith("hotspot"):  # every trial, not joined
                ax.plot([x_of(r, kind) for r in rs], [float(r["latency_mean"]) for r in rs], marker=marker, ms=3.5,
                        ls="none", label=f"{net} = {spec.get(net, net)}")
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
                ax.errorbar(xs, ys, yerr=es if any(es) else None, marker=marker, ms=3.5, lw=1.2, capsize=2,
                            label=f"{net} = {spec.get(net, net)}")
        if logx:
            ax.set_xscale("log")
        ax.set_yscale("log")
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        ax.yaxis.set_major_formatter(plain)
        lo, hi = ax.get_ylim()
        if hi / lo < 30:  # a short log axis: label 2, 3 and 5 between the decades too
            ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:g}"[0] in "235" else ""))
        else:
            ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(xlabel)
        ax.set_ylabel("mean latency (cycles)")
        fig_name = config.get("figures", {}).get(pattern, "")
        ax.set_title(f"{config['experiment']}: {NAMES.get(pattern, pattern)}" + (f" (paper {fig_name})" if fig_name else "")
                     + (f"\n{settings}" if settings else ""), fontsize=10)
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(ncol=2, title="network = spec")
        fig.tight_layout()
        for ext in ("png", "svg"):
            # a pattern with parameters ("mesh:wrap=0") names a file without ':' or ','
            fig.savefig(os.path.join(out, f"{pattern.replace(':', '_').replace(',', '_')}.{ext}"), dpi=rica_plot.DPI)
        plt.close(fig)
    print(f"figures written to {out}")


if __name__ == "__main__":
    main()
