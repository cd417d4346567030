#!/usr/bin/python3
"""rica's one plotting module: the figure style of every plot and the plots themselves.

Usage:
  scripts/rica_plot.py sweep SWEEP.csv [--out DIR] [--title TEXT] [--x accepted|offered|delivered]
  scripts/rica_plot.py links RUN.json [--csv PER_PE.csv] [--out DIR]
  scripts/rica_plot.py os OS.csv [--out DIR] [--title TEXT]
  scripts/rica_plot.py telemetry WINDOWS.csv [--out DIR] [--title TEXT]
  scripts/rica_plot.py os-stream DIR [--out DIR] [--title TEXT]

Every figure is written as PNG 1600 px wide and SVG (style: FIG_INCHES x DPI), with axis labels and
legends at readable sizes, legends naming networks by their spec and titles stating the network,
traffic and model settings. plot_sweep.py, plot_os.py and plot_experiment.py use this module.
Needs matplotlib (Debian: python3-matplotlib; run with /usr/bin/python3).

Exit status: 0 drawn; BAD_INPUT (65) when the input is not what the kind expects (not JSON, not a
run report, missing columns, no rows), after ONE line on stderr naming the file, what is wrong and
what was expected (rica plot shows that line as its error); MISSING_MATPLOTLIB (66) without
matplotlib.
"""
import argparse
import csv
import json
import math
import os
import re
import sys
from collections import defaultdict

BAD_INPUT = 65  # sysexits EX_DATAERR; apps/experiments/sweep.cpp run_plot_script reads it
MISSING_MATPLOTLIB = 66

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402
except ImportError as e:
    sys.stderr.write(f"matplotlib cannot be imported ({e}); install python3-matplotlib\n")
    sys.exit(MISSING_MATPLOTLIB)

# What each kind of plot reads.
EXPECTED = {"links": "a run report written by rica run --json FILE (with --csv)",
            "sweep": "the sweep.csv written by rica sweep",
            "os": "the os.csv written by rica os",
            "telemetry": "the telemetry windows CSV written by rica run --telemetry W (R.telemetry_windows.csv) "
                         "or rica os --telemetry W (telemetry_windows.csv)",
            "os-stream": "a directory written by rica os-stream --out DIR (stream.csv, jobs.csv, switches.csv, "
                         "utilisation.csv)"}


class BadInput(Exception):
    """The input is not what the plot expects: the message names the file and what is wrong."""


def shown(text, limit=60):
    """`text` for a one-line message: non-printable characters escaped, cut after `limit`."""
    text = str(text)
    out = "".join(c if " " <= c <= "~" else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
                  for c in text[:limit])
    return out + ("..." if len(text) > limit else "")

FIG_INCHES = (8.0, 5.0)  # x DPI = 1600 x 1000 px
DPI = 200


def figure(size=FIG_INCHES):
    """A figure and axes in rica's style."""
    plt.rcParams.update({"font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 9,
                         "xtick.labelsize": 9, "ytick.labelsize": 9})
    return plt.subplots(figsize=size)


def save(fig, out, name):
    """DIR/name.png (1600 px wide) and DIR/name.svg."""
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=DPI)
    plt.close(fig)


def t95(n):
    """Two-sided 95% Student t quantile for n - 1 degrees of freedom (n >= 2)."""
    t = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
    return t[n - 2] if 2 <= n <= 31 else 1.96


def sweep(csv_path, out, title=None, x="accepted"):
    """Latency against load, one line per topology spec; error bars (95% CI over seeds) when the CSV
    has several seeds per point."""
    groups = defaultdict(lambda: defaultdict(list))
    rows = list(csv.DictReader(open(csv_path, newline="")))
    if not rows:
        raise BadInput(f"{csv_path}: no rows")
    for r in rows:
        groups[r["topology"]][float(r["offered"])].append(r)
    r0 = rows[0]
    settings = ", ".join(f"{k} {r0[k]}" for k in ("link_cycles", "timing", "arbitration", "buffer_words",
                                                    "packet_words", "source_queue") if k in r0)
    head = title or r0.get("traffic", "")
    seeds = max(len(v) for g in groups.values() for v in g.values())
    xlabels = {"accepted": "accepted throughput (packets/PE/cycle)", "offered": "offered load (packets/PE/cycle)",
               "delivered": "packets delivered in the measured window"}
    names = [x] + [k for k in ("offered", "delivered") if k != x] if x == "accepted" else [x]
    for xkey in names:
        fig, ax = figure()
        for topo, pts in groups.items():
            xs, ys, es = [], [], []
            for offered in sorted(pts):
                rs = pts[offered]
                vx = [float(r[xkey]) for r in rs]
                vy = [float(r["latency_mean"]) for r in rs]
                n = len(vy)
                my = sum(vy) / n
                sd = math.sqrt(sum((v - my) ** 2 for v in vy) / (n - 1)) if n > 1 else 0.0
                xs.append(sum(vx) / n)
                ys.append(my)
                es.append(t95(n) * sd / math.sqrt(n) if n > 1 else 0.0)
            ax.errorbar(xs, ys, yerr=es if seeds > 1 else None, marker="o", ms=4, capsize=3, label=topo)
        if xkey == "delivered":
            ax.set_xscale("log")
        ax.set_xlabel(xlabels[xkey])
        ax.set_ylabel("mean latency (cycles)" + (f", mean and 95% CI of {seeds} seeds" if seeds > 1 else ""))
        ax.set_title(f"{head} traffic\n{settings}" if settings else head)
        ax.grid(True, alpha=0.3)
        ax.legend(title="network")
        save(fig, out, f"latency_vs_{xkey}")
    print(f"plots written to {out}")


def coordinates(label):
    """(x, y) of a grid label such as "(3,4)" or "(1,2,3)" (first two coordinates), else None."""
    m = re.fullmatch(r"\((\d+),(\d+)(?:,(\d+))*\)", label.strip())
    return (int(m.group(1)), int(m.group(2))) if m else None


def links(run_json, out, pe_csv=None):
    """Link-load heat map of a run: per node, the packets its out-links carried. Meshes, tori and
    other networks whose labels are grid coordinates are drawn on their grid; the rest as a
    node x port matrix."""
    j = json.load(open(run_json))
    if not isinstance(j, dict) or "topology" not in j or "config" not in j:
        raise BadInput(f"{run_json}: JSON but not a run report (no 'topology' and 'config')")
    outputs = j.get("outputs", {})
    pe_csv = pe_csv or outputs.get("csv")
    if not pe_csv:
        raise BadInput(f"{run_json}: no per-PE CSV recorded; run with --csv FILE or give --csv")
    if not os.path.isabs(pe_csv) and not os.path.exists(pe_csv):
        pe_csv = os.path.join(os.path.dirname(os.path.abspath(run_json)), os.path.basename(pe_csv))
    link_csv = pe_csv[:-4] + ".links.csv" if pe_csv.endswith(".csv") else pe_csv + ".links.csv"
    labels = {int(r["pe"]): r["label"] for r in csv.DictReader(open(pe_csv, newline=""))}
    load = defaultdict(int)
    ports = defaultdict(dict)
    edges = []
    for r in csv.DictReader(open(link_csv, newline="")):
        load[int(r["node"])] += int(r["packets"])
        ports[int(r["node"])][int(r["port"])] = int(r["packets"])
        edges.append((int(r["node"]), int(r["peer"]), int(r["packets"])))
    cfg = j.get("config", {})
    title = (f"{j.get('topology', '')}: packets per node's out-links; traffic {j.get('traffic') or j.get('app_spec')}, "
             f"rate {cfg.get('rate', '-')}, engine {cfg.get('engine', '')}")
    xy = {v: coordinates(labels[v]) for v in labels}
    fig, ax = figure((8.0, 6.5))
    if labels and all(xy[v] is not None for v in labels):
        w = max(p[0] for p in xy.values()) + 1
        h = max(p[1] for p in xy.values()) + 1
        grid = [[0.0] * w for _ in range(h)]
        for v, (x, y) in xy.items():
            grid[y][x] += load.get(v, 0)
        im = ax.imshow(grid, origin="lower", cmap="viridis", aspect="equal")
        ax.set_xlabel("first coordinate")
        ax.set_ylabel("second coordinate (higher ones summed)")
    else:
        nodes = sorted(labels)
        np_ = max((max(p) for p in ports.values() if p), default=0) + 1
        grid = [[ports[v].get(p, 0) for v in nodes] for p in range(np_)]
        im = ax.imshow(grid, origin="lower", cmap="viridis", aspect="auto", interpolation="nearest")
        ax.set_xlabel("node")
        ax.set_ylabel("out-port")
    fig.colorbar(im, ax=ax, label="packets")
    ax.set_title(title)
    save(fig, out, "links")
    print(f"link heat map written to {out}/links.png, .svg")
    links_dot(edges, labels, title, out)


def links_dot(edges, labels, title, out):
    """The same loads as a Graphviz graph (every network, grid or not): links.dot, one edge per link,
    colour (viridis) and width by packets carried; rendered to links_graph.svg when Graphviz's
    `dot` is installed (it is optional: the .dot file is the output)."""
    import shutil
    import subprocess
    from matplotlib import cm, colors
    top = max((p for _, _, p in edges), default=0) or 1
    name = lambda v: labels.get(v, f"n{v}")  # noqa: E731 (router-only switches have no PE label)
    lines = ["digraph links {", f"  label={json.dumps(title)}; labelloc=t;",
             "  node [shape=circle, fontsize=8, width=0.3, fixedsize=true];", "  edge [arrowsize=0.4];"]
    for u, v, p in edges:
        rgb = colors.to_hex(cm.viridis(p / top))
        lines.append(f"  {json.dumps(name(u))} -> {json.dumps(name(v))} "
                     f"[color=\"{rgb}\", penwidth={0.3 + 3.0 * p / top:.2f}, tooltip=\"{p} packets\"];")
    lines.append("}")
    path = os.path.join(out, "links.dot")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    if shutil.which("dot") and len(edges) <= 20000:
        subprocess.run(["dot", "-Kneato" if len(edges) > 2000 else "-Kdot", "-Tsvg", path, "-o",
                        os.path.join(out, "links_graph.svg")], check=False)
    print(f"link graph written to {path}" + (" and links_graph.svg" if shutil.which("dot") else
                                              " (render with Graphviz: dot -Tsvg links.dot)"))


def os_plots(csv_path, out, title=None):
    """rica os: switch cost and completion against the injection rate, per policy and slice."""
    lines = defaultdict(list)
    for r in csv.DictReader(open(csv_path, newline="")):
        if r["policy"] != "baseline":
            lines[(r["policy"], int(r["slice"]))].append(r)
    if not lines:
        raise BadInput(f"{csv_path}: no time-sharing rows")
    rates = sorted({float(r["rate"]) for rs in lines.values() for r in rs})
    for name, key, ylabel in [("switch_cost", "switch_mean", "cycles per context switch (mean)"),
                              ("completion", "vs_baseline", "completion time / back-to-back")]:
        fig, ax = figure()
        for (policy, slice_), rs in sorted(lines.items()):
            rs.sort(key=lambda r: float(r["rate"]))
            ax.plot([float(r["rate"]) for r in rs], [float(r[key]) for r in rs], marker="o" if policy == "drain" else "s",
                    linestyle="-" if policy == "drain" else "--", label=f"{policy}, slice {slice_}")
        if len(rates) > 1 and rates[-1] / rates[0] >= 10:
            ax.set_xscale("log")
        ax.set_xticks(rates)
        ax.set_xticklabels([f"{r:g}" for r in rates])
        ax.set_xlabel("injection rate (packets/PE/cycle)")
        ax.set_ylabel(ylabel)
        ax.set_title(title or f"time sharing: {ylabel} by policy and slice length")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        save(fig, out, name)


def os_stream(src, out, title=None):
    """rica os-stream: a Gantt chart per run (jobs on PEs over time), utilisation over time,
    bounded-slowdown CDFs and switch cost per run (allocator, scheduler, policy)."""
    def rows(name):
        path = os.path.join(src, name)
        return list(csv.DictReader(open(path, newline="")))
    runs = rows("stream.csv")
    if not runs:
        raise BadInput(f"{os.path.join(src, 'stream.csv')}: no runs")
    key = lambda r: (r["alloc"], r["sched"], r["policy"])
    label = lambda k: f"{k[0]}, {k[1]}" + ("" if k[2] == "none" else f", {k[2]}")
    jobs, util, switches = defaultdict(list), defaultdict(list), defaultdict(list)
    for r in rows("jobs.csv"):
        jobs[key(r)].append(r)
    for r in rows("utilisation.csv"):
        util[key(r)].append(r)
    for r in rows("switches.csv"):
        switches[key(r)].append(r)
    suffix = f"\n{title}" if title else ""
    for run in runs:
        k = key(run)
        fig, ax = figure()
        rows_used = sorted({int(j["row"]) for j in jobs[k]})
        colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for j in jobs[k]:
            start, end, first = int(j["start"]), int(j["end"]), int(j["first_pe"] or 0)
            ax.broken_barh([(start, max(1, end - start))], (first, int(j["pes"])), alpha=0.6,
                           facecolor=colours[rows_used.index(int(j["row"])) % len(colours)], edgecolor="black", linewidth=0.3)
        ax.set_xlabel("cycle")
        ax.set_ylabel("PEs (from the placement's first PE)")
        ax.set_title(f"jobs on PEs over time: {label(k)}" + (f" (colour: gang row)" if len(rows_used) > 1 else "") + suffix)
        ax.grid(True, alpha=0.3)
        save(fig, out, "gantt_" + "_".join(k))
    fig, ax = figure()
    for run in runs:
        k = key(run)
        pts = util[k]
        if not pts:
            continue
        pes_total = max(1, max(int(p["held"]) for p in pts), max(int(p["busy"]) for p in pts))
        xs = [int(p["cycle"]) for p in pts] + [int(run["makespan"])]
        ys = [int(p["busy"]) for p in pts] + [int(pts[-1]["busy"])]
        ax.step(xs, ys, where="post", label=f"{label(k)} (mean {float(run['utilisation']):.2f})")
    ax.set_xlabel("cycle")
    ax.set_ylabel("busy PEs (jobs running)")
    ax.set_title("utilisation over time" + suffix)
    ax.grid(True, alpha=0.3)
    ax.legend()
    save(fig, out, "utilisation")
    fig, ax = figure()
    for run in runs:
        k = key(run)
        v = sorted(float(j["bounded_slowdown"]) for j in jobs[k])
        if v:
            ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post", label=label(k))
    ax.set_xscale("log")
    ax.set_xlabel("bounded slowdown")
    ax.set_ylabel("share of jobs")
    ax.set_title("bounded slowdown CDF" + suffix)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    save(fig, out, "slowdown_cdf")
    timed = [r for r in runs if int(r["switches"]) > 0]
    if timed:
        fig, ax = figure()
        xs = range(len(timed))
        ax.bar([x - 0.2 for x in xs], [float(r["switch_cycles_mean"]) for r in timed], width=0.4,
               label="cycles per switch (mean)")
        ax2 = ax.twinx()
        ax2.bar([x + 0.2 for x in xs], [int(r["packets_saved"]) / int(r["switches"]) for r in timed], width=0.4,
                color="tab:orange", label="packets saved per switch (mean)")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([label(key(r)) for r in timed], rotation=15, ha="right")
        ax.set_ylabel("cycles per switch (mean)")
        ax2.set_ylabel("packets saved per switch (mean)")
        ax.set_title("switch cost per policy" + suffix)
        ax.set_ylim(0, ax.get_ylim()[1] * 1.3)  # room for the legend above the bars
        ax2.set_ylim(0, ax2.get_ylim()[1] * 1.3)
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, loc="upper left")
        save(fig, out, "switch_cost")


def telemetry(csv_path, out, title=None):
    """Telemetry over time: accepted throughput, mean latency and buffer occupancy per window
    against the window's end (cycles); one line per run (rica os: per policy, rate and slice)."""
    runs = defaultdict(list)
    rows = list(csv.DictReader(open(csv_path, newline="")))
    if not rows:
        raise BadInput(f"{csv_path}: no windows")
    for r in rows:
        key = tuple(r[k] for k in ("policy", "rate", "slice") if k in r)
        runs[key].append(r)
    fig, axes = plt.subplots(3, 1, figsize=(FIG_INCHES[0], FIG_INCHES[1] * 1.5), sharex=True)
    panels = [("throughput", "accepted (packets/PE/cycle)"), ("latency_mean", "mean latency (cycles)"),
              ("occupancy_words", "held at window end (words)")]
    for key, rs in sorted(runs.items()):
        edges = [int(rs[0]["begin"])] + [int(r["end"]) for r in rs]  # each window drawn over [begin, end)
        label = None
        if len(key) == 3:
            label = f"{key[0]}, rate {key[1]}" + (f", slice {key[2]}" if key[0] != "baseline" else "")
        for ax, (col, _) in zip(axes, panels):
            y = [float(r[col]) if r[col] != "" else math.nan for r in rs]
            ax.stairs(y, edges, label=label, linewidth=1.5)
    for ax, (_, ylabel) in zip(axes, panels):
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (cycles)")
    window = int(rows[0]["end"]) - int(rows[0]["begin"])
    axes[0].set_title(title or f"telemetry over time, windows of {window} cycles ({os.path.basename(csv_path)})")
    if len(runs) > 1:
        axes[0].legend(fontsize=7, ncol=2)
    name = os.path.basename(csv_path)
    name = name[:-4] if name.endswith(".csv") else name
    name = name[:-len("windows")] if name.endswith("windows") else name
    save(fig, out, name.rstrip("._") or "telemetry")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="kind", required=True)
    s = sub.add_parser("sweep")
    s.add_argument("csv")
    s.add_argument("--out")
    s.add_argument("--title")
    s.add_argument("--x", choices=("accepted", "offered", "delivered"), default="accepted")
    l = sub.add_parser("links")
    l.add_argument("json")
    l.add_argument("--csv")
    l.add_argument("--out")
    o = sub.add_parser("os")
    o.add_argument("csv")
    o.add_argument("--out")
    o.add_argument("--title")
    t = sub.add_parser("telemetry")
    t.add_argument("csv")
    t.add_argument("--out")
    t.add_argument("--title")
    st = sub.add_parser("os-stream")
    st.add_argument("csv", metavar="DIR")
    st.add_argument("--out")
    st.add_argument("--title")
    a = ap.parse_args(argv)
    src = a.csv if a.kind != "links" else a.json
    out = a.out or (src if a.kind == "os-stream" else os.path.dirname(os.path.abspath(src)))
    os.makedirs(out, exist_ok=True)
    try:
        if a.kind == "sweep":
            sweep(a.csv, out, a.title, a.x)
        elif a.kind == "links":
            links(a.json, out, a.csv)
        elif a.kind == "telemetry":
            telemetry(a.csv, out, a.title)
        elif a.kind == "os-stream":
            os_stream(a.csv, out, a.title)
        else:
            os_plots(a.csv, out, a.title)
    except BadInput as e:
        bad_input(str(e), a.kind)
    except json.JSONDecodeError as e:
        bad_input(f"{src}: not JSON ({e.msg} at line {e.lineno})", a.kind)
    except UnicodeDecodeError:
        bad_input(f"{src}: not text (binary bytes)", a.kind)
    except KeyError as e:
        bad_input(f"{src}: no field {shown(e.args[0] if e.args else e)}", a.kind)
    except (ValueError, TypeError, IndexError, AttributeError, csv.Error) as e:
        bad_input(f"{src}: unexpected content ({shown(e)})", a.kind)
    except OSError as e:
        bad_input(f"{e.filename or src}: cannot read ({e.strerror or e})", a.kind)


def bad_input(why, kind):
    """One line on stderr, `why` and what `kind` expects; exit BAD_INPUT."""
    sys.stderr.write(f"{why}; expected {EXPECTED[kind]}\n")
    sys.exit(BAD_INPUT)


if __name__ == "__main__":
    main()
