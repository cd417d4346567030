#!/usr/bin/python3
"""Draws the figures of `rica experiment faults` (docs/faults.md).

Usage: scripts/plot_faults.py POINTS.csv [--out DIR]
Writes DIR/faults.{png,svg}: saturation throughput and latency at a quarter of the intact network's
channel-load bound against the number of failed links, one line per network (x: 0, 1, 2, 4, 8, 16
on a symmetric-log scale; the hollow marker at 0 is the intact network routed by the rerouting
tables), and DIR/spares.{png,svg}: the same against failed PEs for the de Bruijn network with and
without one spare per necklace. Needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rica_plot  # noqa: E402  (the figure style of every rica plot)


def draw(rows, series, name, out, xlabel, title):
    lines = defaultdict(list)
    tables0 = {}
    for r in rows:
        if r["series"] != series:
            continue
        if r["routing"] == "tables" and int(r["failed"]) == 0:
            tables0[r["network"]] = r
            continue
        lines[r["network"]].append(r)
    if not lines:
        return
    fig, (a, b) = rica_plot.plt.subplots(1, 2, figsize=rica_plot.FIG_INCHES)
    # Colour by the network's family (its spec), as in every rica figure.
    spec_of = {net: rs[0]["spec"] for net, rs in lines.items()}
    styles = rica_plot.rica_style.network_styles([spec_of[n] for n in lines])
    for net, rs in lines.items():
        rs.sort(key=lambda r: int(r["failed"]))
        x = [int(r["failed"]) for r in rs]
        st = styles[spec_of[net]]
        if "spares" in net and "no spares" not in net:
            st = dict(st, linestyle="--", marker="s")
        a.plot(x, [float(r["saturation_throughput"]) for r in rs], marker=st["marker"], ls=st["linestyle"],
               color=st["color"], label=net)
        b.plot(x, [float(r["latency_mean"]) for r in rs], marker=st["marker"], ls=st["linestyle"], label=net,
               color=st["color"])
        if net in tables0:
            t = tables0[net]
            a.plot([0], [float(t["saturation_throughput"])], marker="o", mfc="none", color=st["color"])
            b.plot([0], [float(t["latency_mean"])], marker="o", mfc="none", color=st["color"])
    for ax, yl in ((a, "saturation throughput (packets/PE/cycle)"), (b, "latency at 1/4 of the bound (cycles)")):
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xticks([0, 1, 2, 4, 8, 16])
        ax.set_xticklabels(["0", "1", "2", "4", "8", "16"])
        ax.set_xlabel(xlabel)
        ax.set_ylabel(yl)
        ax.grid(True, alpha=0.3)
    a.set_ylim(bottom=0)
    b.legend(fontsize=8)
    rica_plot.rica_style.suptitle(fig, title, fontsize=10)
    rica_plot.save(fig, out, name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--out")
    a = ap.parse_args()
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    rows = list(csv.DictReader(open(a.csv, newline="")))
    if not rows:
        sys.exit(f"{a.csv}: no rows")
    rica_plot.figure()  # the style
    rica_plot.plt.close("all")
    draw(rows, "links", "faults", out, "failed links (random, rerouted)",
         "1,024 PEs, uniform traffic, link time = degree, 32-word buffers (hollow: intact, rerouting tables)")
    draw(rows, "nodes", "spares", out, "failed PEs (random)",
         "UB(2,10), uniform traffic: one spare PE per necklace (de Bruijn paper §3) vs none")


if __name__ == "__main__":
    main()
