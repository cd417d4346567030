#!/usr/bin/env python3
"""Latency vs throughput of two networks under uniform traffic, from Python.

    PYTHONPATH=build/python python3 examples/python/sweep_two.py [--out sweep.png]

Sweeps an 8x8 torus and a 6-cube (64 PEs each) on the cycle engine, prints the table (pandas when
available) and plots mean latency against accepted throughput with matplotlib.
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import rica  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="sweep_two.png")
    ap.add_argument("--cycles", type=int, default=2000)
    a = ap.parse_args()

    networks = ["torus:8x8", "hypercube:6"]
    s = rica.sweep(networks, traffic="uniform", rates="0.02:0.3:0.04", cycles=a.cycles, warmup=a.cycles // 4,
                   seed=1, jobs=0)
    try:
        print(s.frame()[["topology", "offered", "accepted", "latency_mean", "latency_p99"]].to_string(index=False))
    except ImportError:
        for row in zip(s["topology"], s["offered"], s["accepted"], s["latency_mean"]):
            print(*row)

    fig, ax = plt.subplots(figsize=(6, 4))
    for net in networks:
        topo = rica.Topology(net)
        rows = [i for i, t in enumerate(s["spec"]) if t == net]  # the spec as given; "topology" is canonical
        assert rows, f"no points for {net}"
        ax.plot(s["accepted"][rows], s["latency_mean"][rows], marker="o",
                label=f"{topo.canonical} ({topo.pes} PEs)")
    ax.set_xlabel("accepted throughput (packets/PE/cycle)")
    ax.set_ylabel("mean latency (cycles)")
    ax.set_title("uniform traffic, cycle engine")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(f"plot written to {a.out}")


if __name__ == "__main__":
    main()
