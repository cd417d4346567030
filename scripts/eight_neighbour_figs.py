#!/usr/bin/python3
"""The eight-neighbour paper's Figs. 10-12: mean distance d, mean relay count r and network cost C
against the number of PEs N, for the 8-neighbour mesh and torus, the 4-neighbour torus and the
binary n-cube, computed exactly by `rica topo` (square meshes/tori N = n^2, hypercubes N = 2^k).
Writes OUT/points.csv, OUT/figs10-12.png (1600 px) and .svg, and prints where the 8-neighbour
torus and the hypercube cross (the paper: "between 128 and 256").
Usage: scripts/eight_neighbour_figs.py [RICA] [OUT]"""
import csv
import json
import math
import os
import subprocess
import sys

RICA = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../build/rica")
OUT = sys.argv[2] if len(sys.argv) > 2 else "out/eight-neighbour"
os.makedirs(OUT, exist_ok=True)


def measures(spec):
    p = subprocess.run([RICA, "topo", spec, "--json", "-", "--quiet"], capture_output=True, text=True, check=True)
    j = json.loads(p.stdout)
    return j["mean_distance"], j["avg_relay"], j["cost_mean_degree"]  # eq. (34): D x mean degree


families = {
    "8-neighbour mesh": lambda N: f"mesh8:{math.isqrt(N)}" if math.isqrt(N) ** 2 == N else None,
    "8-neighbour torus": lambda N: f"torus8:{math.isqrt(N)}" if math.isqrt(N) ** 2 == N and N >= 9 else None,
    "4-neighbour torus": lambda N: f"torus:{math.isqrt(N)}x{math.isqrt(N)}" if math.isqrt(N) ** 2 == N else None,
    "binary n-cube": lambda N: f"hypercube:{N.bit_length() - 1}" if N & (N - 1) == 0 else None,
}
sizes = sorted({n * n for n in range(3, 65)} | {1 << k for k in range(3, 13)})
rows = []
for name, spec_of in families.items():
    for N in sizes:
        spec = spec_of(N)
        if spec:
            d, r, c = measures(spec)
            rows.append({"network": name, "spec": spec, "pes": N, "d": d, "r": r, "C": c})
with open(os.path.join(OUT, "points.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["network", "spec", "pes", "d", "r", "C"])
    w.writeheader()
    w.writerows(rows)

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rica_style  # noqa: E402  (the one figure style: colours per family, log ticks)

SPEC = {"8-neighbour mesh": "mesh8:8", "8-neighbour torus": "torus8:8", "4-neighbour torus": "torus:8x8",
        "binary n-cube": "hypercube:6"}  # the family of each curve, for its colour
styles = rica_style.network_styles(list(SPEC.values()))
fig, axes = plt.subplots(1, 3, figsize=(16, 5.2), dpi=100)
for ax, key, title in zip(axes, ["d", "r", "C"], ["Fig. 10: mean distance d", "Fig. 11: mean relay count r",
                                                   "Fig. 12: network cost C = D x G"]):
    for name in families:
        pts = [(x["pes"], x[key]) for x in rows if x["network"] == name]
        st = styles[SPEC[name]]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=st["marker"], markersize=3, color=st["color"],
                label=name)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{int(v):,}"))
    rica_style.log_axis(ax, "y")
    ax.set_xlabel("PEs N (log scale)")
    ax.set_ylabel({"d": "mean distance (hops)", "r": "mean relay count (PEs relaying)", "C": "cost D x G"}[key])
    rica_style.title(ax, title)
    ax.grid(True, which="major", axis="x", alpha=0.3)
axes[0].legend()
rica_style.suptitle(fig, "Eight-neighbour paper, Figs. 10-12: exact measures by rica topo (ordered pairs)")
fig.tight_layout()
for ext in ("png", "svg"):
    fig.savefig(os.path.join(OUT, f"figs10-12.{ext}"), dpi=100)  # 1600 px wide


def at(name, N, key):
    return next((x[key] for x in rows if x["network"] == name and x["pes"] == N), None)


print("N, measure: 8-neighbour torus vs binary n-cube (lower is better)")
for N in (64, 256, 1024, 4096):
    print(N, {k: (round(at("8-neighbour torus", N, k), 2), round(at("binary n-cube", N, k), 2)) for k in ("d", "r", "C")})
