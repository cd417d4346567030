#!/usr/bin/python3
"""Plots the results `rica os-stream --out DIR` wrote (scripts/rica_plot.py does the work).

Usage: scripts/plot_os_stream.py DIR [--out DIR] [--title TEXT]
Writes DIR/gantt_<alloc>_<sched>_<policy>, DIR/utilisation, DIR/slowdown_cdf and (time sharing)
DIR/switch_cost, (--alone) DIR/interference (.png 1600 px wide, .svg).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rica_plot  # noqa: E402

if __name__ == "__main__":
    rica_plot.main(["os-stream"] + sys.argv[1:])
