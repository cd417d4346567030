#!/usr/bin/python3
"""Plots a latency-throughput sweep CSV written by `rica sweep` (or any CSV with its columns).

Usage: scripts/plot_sweep.py SWEEP.csv [--out DIR] [--title TEXT]
Writes DIR/latency_vs_delivered.{png,svg} (the MDCE paper's form: x = packets delivered in the
window, log scale; y = mean latency) and DIR/latency_vs_offered.{png,svg}. Needs matplotlib
(Debian: python3-matplotlib, run with /usr/bin/python3).
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--out", default=None)
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    rows = defaultdict(list)
    with open(a.csv, newline="") as f:
        for r in csv.DictReader(f):
            rows[r["topology"]].append(r)
    if not rows:
        sys.exit(f"{a.csv}: no rows")
    title = a.title or next(iter(rows.values()))[0].get("traffic", "")
    for name, xkey, xlabel, logx in [
        ("latency_vs_delivered", "delivered", "packets delivered in the window", True),
        ("latency_vs_offered", "offered", "offered load (packets/PE/cycle)", False),
    ]:
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        for topo, rs in rows.items():
            rs = sorted(rs, key=lambda r: float(r["offered"]))
            ax.plot([float(r[xkey]) for r in rs], [float(r["latency_mean"]) for r in rs], marker="o", ms=3,
                    label=topo)
        if logx:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("mean latency (cycles)")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        for ext in ("png", "svg"):
            fig.savefig(os.path.join(out, f"{name}.{ext}"))
        plt.close(fig)
    print(f"plots written to {out}")


if __name__ == "__main__":
    main()
