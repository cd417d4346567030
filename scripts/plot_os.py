#!/usr/bin/python3
"""Plots a drain-vs-flush comparison CSV written by `rica os` (os.csv).

Usage: scripts/plot_os.py OS.csv [--out DIR]
Writes DIR/switch_cost.{png,svg} (mean cycles per context switch against the injection rate, one
line per policy and slice length) and DIR/completion.{png,svg} (completion time of the job set
relative to running the jobs back to back). Needs matplotlib (Debian: python3-matplotlib, run
with /usr/bin/python3).
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
    a = ap.parse_args()
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    lines = defaultdict(list)
    with open(a.csv, newline="") as f:
        for r in csv.DictReader(f):
            if r["policy"] == "baseline":
                continue
            lines[(r["policy"], int(r["slice"]))].append(r)
    if not lines:
        sys.exit(f"{a.csv}: no time-sharing rows")
    for name, key, ylabel in [
        ("switch_cost", "switch_mean", "cycles per context switch (mean)"),
        ("completion", "vs_baseline", "completion time / back-to-back"),
    ]:
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        for (policy, slice_), rs in sorted(lines.items()):
            rs.sort(key=lambda r: float(r["rate"]))
            ax.plot([float(r["rate"]) for r in rs], [float(r[key]) for r in rs],
                    marker="o" if policy == "drain" else "s",
                    linestyle="-" if policy == "drain" else "--", label=f"{policy}, slice {slice_}")
        ax.set_xscale("log")
        ax.set_xlabel("injection rate (packets/PE/cycle)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        for ext in ("png", "svg"):
            fig.savefig(os.path.join(out, f"{name}.{ext}"))
        plt.close(fig)


if __name__ == "__main__":
    main()
