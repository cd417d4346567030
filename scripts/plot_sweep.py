#!/usr/bin/python3
"""Plots a latency-throughput sweep CSV written by `rica sweep` (scripts/rica_plot.py does the work).

Usage: scripts/plot_sweep.py SWEEP.csv [--out DIR] [--title TEXT] [--x accepted|offered|delivered]
Writes DIR/latency_vs_accepted (the default x axis: accepted packets/PE/cycle), latency_vs_offered
and latency_vs_delivered (the MDCE paper's packet-count axis), each .png (1600 px) and .svg.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rica_plot  # noqa: E402

if __name__ == "__main__":
    rica_plot.main(["sweep"] + sys.argv[1:])
