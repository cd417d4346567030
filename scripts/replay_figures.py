#!/usr/bin/python3
"""The figures and tables of docs/replay.md: two recorded MPI programs (examples/mpi/traces: the
halo-exchange stencil and the conjugate gradient on 16 ranks, recorded by `rica record`) replayed by
`rica replay` on four networks (CCCB, 4x4 torus, 8-neighbour mesh, dragonfly) under three maps
(identity, random, embed), cycle engine, seed 1. Writes OUT/points.csv, OUT/networks.svg|png
(makespan and communication share per network), OUT/mapping.svg|png (the map's effect on hops and
makespan), OUT/critical_path.svg|png (the stencil's critical path on the torus), and prints the
Markdown tables the page shows.
Usage: scripts/replay_figures.py [RICA] [TRACES] [OUT]
Record the traces again (numbers then change with the host's timing):
  rica record -o examples/mpi/traces/stencil16 -- mpirun --oversubscribe -np 16 build/examples/mpi/halo_stencil 32 20 5
  rica record -o examples/mpi/traces/cg16 -- mpirun --oversubscribe -np 16 build/examples/mpi/cg 256 10"""
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RICA = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../build/rica")
TRACES = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "../examples/mpi/traces")
OUT = sys.argv[3] if len(sys.argv) > 3 else os.path.join(HERE, "../docs/figures/replay")
os.makedirs(OUT, exist_ok=True)
sys.path.insert(0, HERE)
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

NETWORKS = [("CCCB", "cccb:n=2"), ("torus 4x4", "torus:4x4"), ("8-neighbour mesh", "mesh8:4"),
            ("dragonfly", "dragonfly:h=2")]
PROGRAMS = [("stencil", "stencil16"), ("CG", "cg16")]
MAPS = ["identity", "random", "embed"]


def replay(trace, spec, mapping):
    p = subprocess.run([RICA, "replay", os.path.join(TRACES, trace), spec, "--engine", "cycle", "--threads", "1",
                        "--seed", "1", "--map", mapping, "--json", "-", "--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"rica replay {trace} {spec} --map {mapping}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


rows = []
for prog, trace in PROGRAMS:
    for net, spec in NETWORKS:
        for m in MAPS:
            j = replay(trace, spec, m)
            r = j["replay"]
            rows.append({"program": prog, "network": net, "spec": spec, "map": m, "pes": j.get("pes"),
                         "makespan": r["makespan"], "communication_share": r["communication_share"],
                         "compute_share": r["compute_share"], "hops_mean": j["hops_mean"],
                         "messages": r["p2p_messages"] + r["collective_messages"],
                         "latency_p50": r["message_latency"]["p50"], "latency_p99": r["message_latency"]["p99"],
                         "critical_communication": r["critical_path"]["communication"],
                         "recorded_wall_s": r["recorded_wall_s"], "_json": j})
with open(os.path.join(OUT, "points.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=[k for k in rows[0] if not k.startswith("_")])
    w.writeheader()
    for row in rows:
        w.writerow({k: v for k, v in row.items() if not k.startswith("_")})


def save(fig, name):
    fig.tight_layout()
    for ext in ("svg", "png"):
        fig.savefig(os.path.join(OUT, f"{name}.{ext}"), dpi=150)
    plt.close(fig)


# Makespan and communication share per network (identity map).
fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
width = 0.38
for k, (prog, _) in enumerate(PROGRAMS):
    sel = [r for r in rows if r["program"] == prog and r["map"] == "identity"]
    xs = [i + (k - 0.5) * width for i in range(len(sel))]
    axes[0].bar(xs, [r["makespan"] / 1e3 for r in sel], width, label=prog)
    axes[1].bar(xs, [100 * r["communication_share"] for r in sel], width, label=prog)
for ax, label in ((axes[0], "makespan (10^3 cycles)"), (axes[1], "communication share of rank time (%)")):
    ax.set_xticks(range(len(NETWORKS)))
    ax.set_xticklabels([n for n, _ in NETWORKS], fontsize=8)
    ax.set_ylabel(label)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
fig.suptitle("16-rank MPI programs replayed on four networks (identity map, 1 GHz compute)", fontsize=10)
save(fig, "networks")

# The map's effect: mean hops and makespan per map, stencil.
fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
width = 0.26
for k, m in enumerate(MAPS):
    sel = [r for r in rows if r["program"] == "stencil" and r["map"] == m]
    xs = [i + (k - 1) * width for i in range(len(sel))]
    axes[0].bar(xs, [r["hops_mean"] for r in sel], width, label=m)
    axes[1].bar(xs, [r["makespan"] / 1e3 for r in sel], width, label=m)
for ax, label in ((axes[0], "mean hops per packet"), (axes[1], "makespan (10^3 cycles)")):
    ax.set_xticks(range(len(NETWORKS)))
    ax.set_xticklabels([n for n, _ in NETWORKS], fontsize=8)
    ax.set_ylabel(label)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, title="--map", title_fontsize=8)
fig.suptitle("The stencil's rank-to-PE map on each network", fontsize=10)
save(fig, "mapping")

# The critical path of the stencil on the torus: who held up whom.
j = next(r["_json"] for r in rows if r["program"] == "stencil" and r["spec"] == "torus:4x4" and r["map"] == "identity")
cp = j["replay"]["critical_path"]
fig, ax = plt.subplots(figsize=(9, 3.2))
for s in cp["steps"]:
    color = "#4c72b0" if s["what"] == "local" else "#dd8452"
    ax.plot([s["from"] / 1e3, s["to"] / 1e3], [s["rank"], s["rank"]], color=color, linewidth=5, solid_capstyle="butt")
    if s["what"] == "communication" and s.get("from_rank") is not None and s["from_rank"] != s["rank"]:
        ax.annotate("", xy=(s["from"] / 1e3, s["rank"]), xytext=(s["from"] / 1e3, s["from_rank"]),
                    arrowprops=dict(arrowstyle="->", color="#888888", lw=0.8))
ax.plot([], [], color="#4c72b0", linewidth=5, label="local (compute, calls)")
ax.plot([], [], color="#dd8452", linewidth=5, label="waiting for a message")
ax.set_xlabel("cycles (10^3)")
ax.set_ylabel("rank")
ax.legend(fontsize=8, loc="upper left")
ax.grid(True, alpha=0.3)
shown = "" if cp["steps_shown"] >= cp["steps_total"] else f", last {cp['steps_shown']} of {cp['steps_total']} steps"
ax.set_title(f"Stencil on torus:4x4: the critical path, {cp['length']} cycles ({cp['local']} local, "
             f"{cp['communication']} communication{shown})", fontsize=9)
save(fig, "critical_path")

print("| program | network | map | makespan (cycles) | communication share | mean hops | message latency p50 / p99 |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
for r in rows:
    print(f"| {r['program']} | {r['network']} (`{r['spec']}`) | {r['map']} | {r['makespan']} | "
          f"{100 * r['communication_share']:.1f} % | {r['hops_mean']:.2f} | {r['latency_p50']} / {r['latency_p99']} |")
print(f"\nrecorded wall time: " + ", ".join(f"{p} {next(r['recorded_wall_s'] for r in rows if r['program'] == p):.4f} s"
                                        for p, _ in PROGRAMS))
