#!/usr/bin/env python3
"""The collective crossover figures of docs/collectives.md: completion time against message size,
one line per algorithm, on several networks; the alpha-beta model's prediction (lines) beside the
emulated cycle-engine times (points), and where MPICH's default rule switches algorithm (vertical
lines).

    scripts/collectives_crossover.py BUILD_DIR OUT_DIR [--quick] [--jobs N]
    scripts/collectives_crossover.py OUT_DIR --points CSV...   # rows of build/bench/collectives_points

Runs `BUILD_DIR/rica run NETWORK --app COLLECTIVE:algorithm=A,bytes=B --engine cycle --json F` for
every point (cached in OUT_DIR/runs/ by its command line, so a rerun only plots), writes every point
to OUT_DIR/crossover.csv (network, collective, algorithm, bytes, cycles, model_cycles, ratio,
messages, packets, verified) and draws OUT_DIR/crossover-<collective>.png/.svg. A point that is not
verified stops the script (exit 1). --quick: two sizes per decade fewer and two networks (CI).
"""
import argparse
import csv
import concurrent.futures
import hashlib
import json
import math
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rica_style  # noqa: E402

# 64 PEs each: the papers' networks and today's.
NETWORKS = ["hypercube:6", "torus:8x8", "cccb:n=3", "fattree:k=4,n=3"]
QUICK_NETWORKS = ["hypercube:6", "torus:8x8"]
COLLECTIVES = {
    "allreduce": ["recursive-doubling", "rabenseifner", "ring", "binomial"],
    "bcast": ["binomial", "scatter-allgather", "scatter-ring-allgather", "pipeline"],
    "allgather": ["recursive-doubling", "bruck", "ring"],
    "alltoall": ["bruck", "linear", "pairwise"],
}
SIZES = [8, 64, 512, 4096, 16384]
QUICK_SIZES = [8, 256, 4096]
# MPICH's switch points (rica::coll::choose; docs/collectives.md), in the app's `bytes` (per rank
# block for allgather and alltoall), for p = 64 (a power of two, >= 8).
SWITCHES = {
    "allreduce": [(2048, "recursive-doubling | rabenseifner")],
    "bcast": [(12288, "binomial | scatter-allgather"), (524288, "| scatter-ring-allgather")],
    "allgather": [(524288 / 64, "recursive-doubling | ring")],
    "alltoall": [(256, "bruck | linear"), (32768, "linear | pairwise")],
}
MARKERS = ["o", "s", "^", "D", "v"]


def run_point(rica, out, network, coll, alg, size):
    spec = f"{coll}:algorithm={alg},bytes={size}"
    if coll == "bcast" and alg == "pipeline":
        spec += f",segment={max(64, size // 8)}"
    cmd = [rica, "run", network, "--app", spec, "--engine", "cycle", "--quiet"]
    key = hashlib.sha1(" ".join(cmd[1:]).encode()).hexdigest()[:16]
    path = os.path.join(out, "runs", key + ".json")
    if not os.path.exists(path):
        tmp = path + ".tmp"
        r = subprocess.run(cmd + ["--json", tmp], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"collectives_crossover: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
        os.replace(tmp, path)
    with open(path) as f:
        j = json.load(f)
    app = j["app"]
    return {"network": network, "collective": coll, "algorithm": alg, "bytes": size,
            "cycles": app["cycles"], "model_cycles": app["model_cycles"],
            "ratio": app["model_ratio"], "messages": app["messages"], "packets": app["packets"],
            "verified": j.get("verified", False)}


def plot(rows, out, coll, networks):
    n = len(networks)
    cols = 2 if n > 1 else 1
    fig, axes = plt.subplots((n + cols - 1) // cols, cols, figsize=(8.0, 3.2 * ((n + cols - 1) // cols)),
                             squeeze=False)
    for ax, net in zip(axes.flat, networks):
        for i, alg in enumerate(COLLECTIVES[coll]):
            pts = sorted((r for r in rows if r["network"] == net and r["collective"] == coll
                          and r["algorithm"] == alg), key=lambda r: r["bytes"])
            if not pts:
                continue
            colour = f"C{i}"
            xs = [r["bytes"] for r in pts]
            ax.plot(xs, [r["model_cycles"] for r in pts], "-", color=colour, lw=1.2, alpha=0.8)
            ax.plot(xs, [r["cycles"] for r in pts], MARKERS[i % len(MARKERS)], color=colour, ms=4.5,
                    label=alg, markerfacecolor="none")
        lo, hi = min(r["bytes"] for r in rows), max(r["bytes"] for r in rows)
        for x, text in SWITCHES.get(coll, []):
            if lo <= x <= hi:
                ax.axvline(x, color="0.4", ls=":", lw=1)
                ax.text(x, 0.98, " " + text, transform=ax.get_xaxis_transform(), fontsize=7, va="top",
                        color="0.3", rotation=90)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        rica_style.finish_log_axes(ax)
        ax.set_xlabel("bytes per rank (message size)")
        ax.set_ylabel("completion (cycles)")
        rica_style.title(ax, net)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7.5, title="points: emulated; lines: model", title_fontsize=7.5)
    rica_style.suptitle(fig, f"{coll}: emulated completion (points) against the alpha-beta model (lines); "
                             "dotted: MPICH's switch points")
    rica_style.save(fig, out, f"crossover-{coll}")


def read_points(paths):
    """Rows of collectives_points: network,spec,cycles,model_cycles,model_ratio,messages,packets,verified."""
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for rec in csv.reader(f):
                if len(rec) != 8:
                    sys.exit(f"collectives_crossover: {path}: a row of {len(rec)} fields, 8 expected")
                net, spec = rec[0], rec[1]
                coll, _, args = spec.partition(":")
                kv = dict(x.split("=", 1) for x in args.split(",") if "=" in x)
                rows.append({"network": net, "collective": coll, "algorithm": kv.get("algorithm", "auto"),
                             "bytes": int(kv.get("bytes", 0)), "cycles": float(rec[2]),
                             "model_cycles": float(rec[3]), "ratio": float(rec[4]), "messages": int(rec[5]),
                             "packets": int(rec[6]), "verified": rec[7] == "1"})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?")
    ap.add_argument("out")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--points", nargs="+", help="plot these collectives_points CSV files instead of running")
    a = ap.parse_args()
    if a.points:
        os.makedirs(a.out, exist_ok=True)
        rows = read_points(a.points)
        return finish(rows, a.out, sorted({r["network"] for r in rows}, key=lambda n: NETWORKS.index(n)
                                          if n in NETWORKS else 99))
    rica = os.path.join(a.build, "rica")
    if not os.access(rica, os.X_OK):
        sys.exit(f"collectives_crossover: {rica} is not an executable (build the 'rica' target)")
    os.makedirs(os.path.join(a.out, "runs"), exist_ok=True)
    networks = QUICK_NETWORKS if a.quick else NETWORKS
    sizes = QUICK_SIZES if a.quick else SIZES
    todo = [(n, c, alg, s) for n in networks for c, algs in COLLECTIVES.items() for alg in algs for s in sizes]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        rows = list(ex.map(lambda t: run_point(rica, a.out, *t), todo))
    finish(rows, a.out, networks)


def finish(rows, out, networks):
    bad = [r for r in rows if not r["verified"]]
    if bad:
        sys.exit(f"collectives_crossover: not verified: {bad[0]}")
    tmp = os.path.join(out, "crossover.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, os.path.join(out, "crossover.csv"))
    for coll in COLLECTIVES:
        if any(r["collective"] == coll for r in rows):
            plot(rows, out, coll, networks)
    # The summary docs/collectives.md quotes: the emulated / model ratio per network and collective.
    for net in networks:
        for coll in COLLECTIVES:
            rs = [r["ratio"] for r in rows if r["network"] == net and r["collective"] == coll]
            if not rs:
                continue
            print(f"{net:18} {coll:10} ratio emulated/model: min {min(rs):.3f} max {max(rs):.3f} "
                  f"geomean {math.exp(sum(math.log(x) for x in rs) / len(rs)):.3f}")


if __name__ == "__main__":
    main()
