#!/usr/bin/python3
"""Plots a drain-vs-flush comparison CSV written by `rica os` (scripts/rica_plot.py does the work).

Usage: scripts/plot_os.py OS.csv [--out DIR] [--title TEXT]
Writes DIR/switch_cost and DIR/completion (.png 1600 px wide, .svg): per policy and slice length,
against the injection rate (every rate a tick).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rica_plot  # noqa: E402

if __name__ == "__main__":
    rica_plot.main(["os"] + sys.argv[1:])
