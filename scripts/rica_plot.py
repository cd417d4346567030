#!/usr/bin/python3
"""rica's one plotting module: the figure style of every plot and the plots themselves.

Usage:
  scripts/rica_plot.py sweep SWEEP.csv [--out DIR] [--title TEXT] [--x accepted|offered|delivered]
  scripts/rica_plot.py links RUN.json [--csv PER_PE.csv] [--out DIR]
  scripts/rica_plot.py latency RUN.json [--out DIR]
  scripts/rica_plot.py os OS.csv [--out DIR] [--title TEXT]
  scripts/rica_plot.py telemetry WINDOWS.csv [--out DIR] [--title TEXT]
  scripts/rica_plot.py os-stream DIR [--out DIR] [--title TEXT]

Every figure is written as PNG 1600 px wide and SVG in the one style of scripts/rica_style.py (titles
wrapped to fit, axis labels with units, colours fixed per network family and per OS policy, log axes
with 1-2-5 ticks), legends naming networks by their spec and titles stating the network, traffic and
model settings in words. Link heat maps: scripts/rica_heatmap.py. plot_sweep.py, plot_os.py,
plot_experiment.py and plot_faults.py use this module.
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

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import rica_style  # noqa: E402  (the one figure style)
except ImportError as e:
    sys.stderr.write(f"matplotlib cannot be imported ({e}); install python3-matplotlib\n")
    sys.exit(MISSING_MATPLOTLIB)

# What each kind of plot reads.
EXPECTED = {"links": "a run report written by rica run --json FILE (with --csv)",
            "latency": "a run report written by rica run --json FILE (its latency_distribution)",
            "sweep": "the sweep.csv written by rica sweep",
            "os": "the os.csv written by rica os",
            "telemetry": "the telemetry windows CSV written by rica run --telemetry W (R.telemetry_windows.csv) "
                         "or rica os --telemetry W (telemetry_windows.csv)",
            "trace": "a Chrome trace-event JSON written by --trace-events FILE",
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

FIG_INCHES = rica_style.FIG_INCHES  # x DPI = 1600 x 1000 px
DPI = rica_style.DPI
figure = rica_style.figure
save = rica_style.save


QUIET = False  # --quiet: no line saying where the figures went (errors still go to stderr)


def say(text):
    if not QUIET:
        print(text)


def t95(n):
    """Two-sided 95% Student t quantile for n - 1 degrees of freedom (n >= 2)."""
    t = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
    return t[n - 2] if 2 <= n <= 31 else 1.96


def series_of(rows):
    """The series key of each row: the topology, and its routing when the rows hold several
    routings (rica sweep --routing a,b: one series per routing, never averaged as seeds)."""
    several = len({r.get("routing", "") for r in rows}) > 1
    return lambda r: f"{r['topology']} {r.get('routing', '')}" if several else r["topology"]


def read_summary(csv_path, key=None):
    """sweep_summary.csv beside a sweep.csv (rica sweep writes it): per series (topology, or
    topology and routing: `key`) its zero-load latency, saturation, knee and channel-load bound (its
    own routing's); {} when absent."""
    path = os.path.join(os.path.dirname(os.path.abspath(csv_path)), "sweep_summary.csv")
    if not os.path.exists(path):
        return {}
    rows = list(csv.DictReader(open(path, newline="")))
    key = key or series_of(rows)
    return {key(r): r for r in rows}


def number(text):
    """float(text), or None for an empty field or 'nan'."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def sweep(csv_path, out, title=None, x="accepted"):
    """Latency against load, one line per topology spec; error bars (95% CI over seeds) when the CSV
    has several seeds per point. With sweep_summary.csv beside it: the channel-load bound (a dotted
    vertical line in the network's colour; accepted and offered axes) and the detected saturation
    point (a large hollow marker) of every network."""
    groups = defaultdict(lambda: defaultdict(list))
    rows = list(csv.DictReader(open(csv_path, newline="")))
    if not rows:
        raise BadInput(f"{csv_path}: no rows")
    key = series_of(rows)
    for r in rows:
        groups[key(r)][float(r["offered"])].append(r)
    summary = read_summary(csv_path, key)
    r0 = rows[0]
    settings = rica_style.settings(r0)
    head = title or r0.get("traffic", "")
    seeds = max(len(v) for g in groups.values() for v in g.values())
    xlabels = {"accepted": "accepted throughput (packets/PE/cycle)", "offered": "offered load (packets/PE/cycle)",
               "delivered": "packets delivered in the measured window (all PEs)"}
    names = [x] + [k for k in ("offered", "delivered") if k != x] if x == "accepted" else [x]
    styles = rica_style.network_styles(list(groups))
    for xkey in names:
        fig, ax = figure()
        marked = drew_bound = False
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
            st = styles[topo]
            ax.errorbar(xs, ys, yerr=es if seeds > 1 else None, marker=st["marker"], ms=4, capsize=3,
                        color=st["color"], linestyle=st["linestyle"], label=topo)
            s = summary.get(topo)
            if not s:
                continue
            bound = number(s.get("bound"))
            if bound and xkey in ("accepted", "offered"):
                ax.axvline(bound, color=st["color"], linestyle=":", linewidth=1.3)
                drew_bound = True
            sat = number(s.get("saturation_offered"))
            if sat is not None and s.get("saturated") == "1":
                offs = sorted(pts)
                i = min(range(len(offs)), key=lambda k: abs(offs[k] - sat))
                ax.plot([xs[i]], [ys[i]], marker="o", ms=13, mfc="none", mec=st["color"], mew=1.6, linestyle="none")
                marked = True
        if drew_bound:  # what the marks mean, once
            ax.plot([], [], color="0.3", linestyle=":", label="channel-load bound (each routing's own)"
                    if len({r.get("routing") for r in rows}) > 1 else "channel-load bound")
        if marked:
            ax.plot([], [], marker="o", ms=10, mfc="none", mec="0.3", linestyle="none", label="saturation detected")
        if xkey == "delivered":
            ax.set_xscale("log")
        ys_all = [float(r["latency_mean"]) for r in rows if float(r["latency_mean"]) > 0]
        if ys_all and max(ys_all) / min(ys_all) > 20:
            ax.set_yscale("log")
        rica_style.finish_log_axes(ax)
        ax.set_xlabel(xlabels[xkey])
        ax.set_ylabel("mean latency (cycles)" + (f"\nmean and 95% CI of {seeds} seeds" if seeds > 1 else ""))
        rica_style.title(ax, f"{head} traffic" + (f"\n{settings}" if settings else "")
                         + ("; rings: saturation (latency > 3x zero-load or accepted < 0.85 x offered)" if marked else ""))
        ax.grid(True, which="major", alpha=0.3)
        rica_style.legend(ax, "network")
        save(fig, out, f"latency_vs_{xkey}")
    say(f"plots written to {out}")


def run_report(run_json):
    """The run report at `run_json` (BadInput when it is not one)."""
    j = json.load(open(run_json))
    if not isinstance(j, dict) or "topology" not in j or "config" not in j:
        raise BadInput(f"{run_json}: JSON but not a run report (no 'topology' and 'config')")
    return j


def links(run_json, out, pe_csv=None):
    """Link heat map of a run (scripts/rica_heatmap.py): utilisation 0-1 per directed link, in the
    family's layout; R.links.png, .svg and .dot for R.json in `out` (rica plot: beside the JSON), named
    after the input so that two runs' heat maps in one directory never overwrite each other."""
    import rica_heatmap
    j = run_report(run_json)
    outputs = j.get("outputs", {})
    pe_csv = pe_csv or outputs.get("csv")
    if not pe_csv:
        raise BadInput(f"{run_json}: no per-PE CSV recorded; run with --csv FILE or give --csv")
    if not os.path.isabs(pe_csv) and not os.path.exists(pe_csv):
        pe_csv = os.path.join(os.path.dirname(os.path.abspath(run_json)), os.path.basename(pe_csv))
    link_csv = pe_csv[:-4] + ".links.csv" if pe_csv.endswith(".csv") else pe_csv + ".links.csv"
    labels = {int(r["pe"]): r["label"] for r in csv.DictReader(open(pe_csv, newline=""))}
    rows = list(csv.DictReader(open(link_csv, newline="")))
    if not rows:
        raise BadInput(f"{link_csv}: no links")
    name = os.path.basename(run_json)
    name = (name[:-5] if name.endswith(".json") else name) + ".links"
    layout = rica_heatmap.heat_map(rica_heatmap.Links(j, labels, rows), out, name)
    say(f"link heat map ({layout} layout) written to {os.path.join(out, name)}.png, .svg and .dot")


def distributions(j, path=""):
    """(name, distribution) of every latency_distribution in a report: the run's total and network,
    and any per class or per job the report holds (nested reports, e.g. an os.json's runs)."""
    found = []
    if isinstance(j, dict):
        d = j.get("latency_distribution")
        if isinstance(d, dict):
            for k, v in d.items():
                if isinstance(v, dict) and "count" in v:
                    found.append(((path + " " if path else "") + str(k), v))
        for k, v in j.items():
            if k != "latency_distribution" and isinstance(v, (dict, list)):
                found += distributions(v, (path + " " if path else "") + str(k) if isinstance(v, dict) else path)
    elif isinstance(j, list):
        for i, v in enumerate(j):
            name = v.get("policy") or v.get("name") or v.get("job") or str(i) if isinstance(v, dict) else str(i)
            found += distributions(v, (path + " " if path else "") + str(name))
    return found


def group_distributions(j, kind, path=""):
    """(name, distribution, dashed) per class or job (`kind`: "classes" or "jobs") of every
    latency_distribution in a report: each group's total latency, and its network latency dashed
    for a single run (a report of several runs gives the total only, to stay readable)."""
    found = []
    if isinstance(j, dict):
        d = j.get("latency_distribution")
        if isinstance(d, dict):
            for g in d.get(kind, []):
                gid = g.get("class", g.get("job"))
                name = (path + ": " if path else "") + f"{kind[:-1] if kind == 'jobs' else 'class'} {gid}"
                if g.get("total", {}).get("count"):
                    found.append((name + " total" if not path else name, g["total"], False))
                if not path and g.get("network", {}).get("count"):
                    found.append((name + " network", g["network"], True))
        for k, v in j.items():
            if k != "latency_distribution" and isinstance(v, (dict, list)):
                found += group_distributions(v, kind, (path + " " if path else "") + str(k) if isinstance(v, dict) else path)
    elif isinstance(j, list):
        for i, v in enumerate(j):
            name = (v.get("policy") or v.get("name") or str(i)) if isinstance(v, dict) else str(i)
            if isinstance(v, dict) and v.get("slice") not in (None, ""):
                name += f" slice {v['slice']}"
            found += group_distributions(v, kind, (path + " " if path else "") + str(name))
    return found


def latency(run_json, out):
    """Latency histogram and CDF from a report's latency_distribution (total = generation to
    delivery, network = entering the network to delivery): R.latency.png and .svg for R.json;
    with several buffer classes R.latency_classes.png, in an OS report R.latency_jobs.png (one
    curve per class or job)."""
    j = json.load(open(run_json))
    if not isinstance(j, dict):
        raise BadInput(f"{run_json}: JSON but not a rica report")
    dists = [(n, d, False) for n, d in distributions(j) if d.get("count")]
    if not dists:
        raise BadInput(f"{run_json}: no latency_distribution with packets (a run report of rica run --json)")
    name = os.path.basename(run_json)
    name = name[:-5] if name.endswith(".json") else name
    written = [draw_latency(j, run_json, dists, out, f"{name}.latency", "")]
    for kind, what in (("classes", "per buffer class (the class a packet is delivered from)"), ("jobs", "per job")):
        groups = group_distributions(j, kind)
        if groups:
            written.append(draw_latency(j, run_json, groups, out, f"{name}.latency_{kind}", what))
    say(f"latency figures written to {out}/" + ", ".join(f"{w}.png" for w in written) + " (and .svg)")


def draw_latency(j, run_json, dists, out, fname, what):
    """One latency figure: histogram (top) and CDF (bottom) of `dists` [(label, distribution,
    dashed)]; returns the file's name without extension."""
    unit = dists[0][1].get("unit", "cycles")
    fig, (h, c) = plt.subplots(2, 1, figsize=(FIG_INCHES[0], FIG_INCHES[1] * 1.4), sharex=True)
    palette = plt.get_cmap("tab10")
    colour_of = {}  # a group's total and network curves share its colour
    for name, d, dashed in dists:
        low, high, count = d["low"], d["high"], d["count"]
        total = float(sum(count)) or 1.0
        group = name.rsplit(" ", 1)[0] if what and name.endswith((" total", " network")) else name
        colour = colour_of.setdefault(group, palette(len(colour_of) % 10))
        ls = "--" if dashed else "-"
        edges = [max(low[0], 0.5)] + [float(x) for x in high]
        frac = [k / total for k in count]
        # fraction of packets per unit of latency: comparable across buckets of different widths
        dens = [f / max(1.0, hi - lo) for f, lo, hi in zip(frac, low, high)]
        h.stairs(dens, edges, color=colour, linewidth=1.5, linestyle=ls, label=f"{name} ({int(total):,} packets)")
        c.step([edges[0]] + [float(x) for x in high], [0.0] + list(d["cdf"]), where="post", color=colour,
               linewidth=1.5, linestyle=ls, label=name)
    h.set_ylabel(f"fraction of packets per {'cycle' if unit == 'cycles' else unit}")
    h.set_yscale("log")
    c.set_ylabel("cumulative fraction of packets")
    c.set_ylim(0, 1.02)
    for q in (0.5, 0.99):
        c.axhline(q, color="0.6", linewidth=0.8, linestyle=":")
        c.text(0.005, q, f" p{int(q * 100)}", fontsize=7, va="bottom", color="0.4", transform=c.get_yaxis_transform())
    c.set_xscale("log")
    rica_style.finish_log_axes(h)
    rica_style.finish_log_axes(c)
    c.set_xlabel(f"latency ({unit}; buckets of the run's histogram)")
    h.grid(True, which="major", alpha=0.3)
    c.grid(True, which="major", alpha=0.3)
    cfg = j.get("config", {})
    traffic = j.get("traffic") or j.get("app_spec") or cfg.get("traffic", "")
    rica_style.title(h, f"{j.get('topology', os.path.basename(run_json))}: latency distribution"
                     + (f" {what}" if what else "")
                     + (f"; traffic {traffic}" if traffic else "")
                     + (f", rate {cfg['rate']}" if cfg.get("rate") not in (None, "") else "")
                     + "\ntotal = generation to delivery (source queueing included), network = entering the network to delivery")
    rica_style.legend(h)
    save(fig, out, fname)
    return fname


def os_plots(csv_path, out, title=None):
    """rica os: switch cost and completion against the injection rate, per policy and slice. One
    colour family per slice length (drain and flush at one slice share it); the policy sets shade,
    marker and line style (rica_style.policy_style)."""
    lines = defaultdict(list)
    for r in csv.DictReader(open(csv_path, newline="")):
        if r["policy"] != "baseline":
            lines[(r["policy"], int(r["slice"]))].append(r)
    if not lines:
        raise BadInput(f"{csv_path}: no time-sharing rows")
    rates = sorted({float(r["rate"]) for rs in lines.values() for r in rs})
    slices = sorted({s for _, s in lines})
    order = {p: i for i, p in enumerate(rica_style.POLICY_STYLE)}
    for name, key, ylabel in [("switch_cost", "switch_mean", "cycles per context switch (mean)"),
                              ("completion", "vs_baseline", "completion time / jobs run back to back")]:
        fig, ax = figure()
        for (policy, slice_), rs in sorted(lines.items(), key=lambda kv: (kv[0][1], order.get(kv[0][0], 99))):
            rs.sort(key=lambda r: float(r["rate"]))
            st = rica_style.policy_style(policy, slice_, slices)
            ax.plot([float(r["rate"]) for r in rs], [float(r[key]) for r in rs], marker=st["marker"],
                    linestyle=st["linestyle"], color=st["color"], label=f"{policy}, slice {slice_:,} cycles")
        if len(rates) > 1 and rates[-1] / rates[0] >= 10:
            rica_style.log_axis(ax, "x")
        ys = [float(r[key]) for rs in lines.values() for r in rs if float(r[key]) > 0]
        if ys and max(ys) / min(ys) >= 30:
            rica_style.log_axis(ax, "y")
        if len(rates) <= 12:  # every rate run is a labelled tick
            ax.set_xticks(rates)
            ax.set_xticklabels([f"{r:g}" for r in rates])
        ax.set_xlabel("injection rate (packets/PE/cycle)")
        ax.set_ylabel(ylabel)
        rica_style.title(ax, title or f"time sharing: {ylabel} by policy and slice length")
        ax.grid(True, which="major", alpha=0.3)
        rica_style.legend(ax, "policy, slice")
        save(fig, out, name)


def _placement_runs(text):
    """jobs.csv's placement ("0-5 8 10-11") as (first PE, count) runs; [] when absent."""
    out = []
    for part in (text or "").split():
        a, _, b = part.partition("-")
        out.append((int(a), int(b or a) - int(a) + 1))
    return out


def _merge_identical(series):
    """Series [((xs, ys), label)] with identical data drawn once, labelled "A = B" (identical
    drain and flush runs would otherwise hide each other's lines)."""
    merged = []
    for data, name in series:
        for m in merged:
            if m[0] == data:
                m[1].append(name)
                break
        else:
            merged.append((data, [name]))
    return [(data, " = ".join(names)) for data, names in merged]


def os_stream(src, out, title=None):
    """rica os-stream: a Gantt chart per run (jobs on PEs over time), utilisation over time,
    bounded-slowdown CDFs, switch cost per run (allocator, scheduler, policy) and, with --alone,
    interference (each job's latency in the stream against alone on its PEs)."""
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
        pes_max = 1
        for j in jobs[k]:
            start, end = int(j["start"]), int(j["end"])
            # One bar per run of consecutive PE ids of the placement (a buddy block on a torus, a
            # random placement: never one block from the first PE); older jobs.csv: first_pe on.
            runs_of = _placement_runs(j.get("placement")) or [(int(j["first_pe"] or 0), int(j["pes"]))]
            pes_max = max([pes_max] + [a + n for a, n in runs_of])
            for first, n in runs_of:
                ax.broken_barh([(start, max(1, end - start))], (first, n), alpha=0.6,
                               facecolor=colours[rows_used.index(int(j["row"])) % len(colours)], edgecolor="black",
                               linewidth=0.3)
        ax.set_ylim(0, pes_max)
        ax.set_xlabel("cycle")
        ax.set_ylabel("PE")
        ax.set_title(f"jobs on PEs over time: {label(k)}" + (f" (colour: gang row)" if len(rows_used) > 1 else "") + suffix)
        ax.grid(True, alpha=0.3)
        save(fig, out, "gantt_" + "_".join(k))
    fig, ax = figure()
    series = []
    for run in runs:
        k = key(run)
        pts = util[k]
        if not pts:
            continue
        xs = [int(p["cycle"]) for p in pts] + [int(run["makespan"])]
        ys = [int(p["busy"]) for p in pts] + [int(pts[-1]["busy"])]
        series.append(((xs, ys), label(k) + f" (mean {float(run['utilisation']):.2f})"))
    for (xs, ys), name in _merge_identical(series):
        ax.step(xs, ys, where="post", label=name)
    ax.set_xlabel("cycle")
    ax.set_ylabel("busy PEs (jobs running)")
    ax.set_title("utilisation over time" + suffix)
    ax.grid(True, alpha=0.3)
    ax.legend()
    save(fig, out, "utilisation")
    fig, ax = figure()
    series = []
    for run in runs:
        k = key(run)
        v = sorted(float(j["bounded_slowdown"]) for j in jobs[k])
        if v:
            series.append(((v, [(i + 1) / len(v) for i in range(len(v))]), label(k)))
    for (xs, ys), name in _merge_identical(series):
        ax.step(xs, ys, where="post", label=name)
    ax.set_xscale("log")
    ax.set_xlabel("bounded slowdown")
    ax.set_ylabel("share of jobs")
    ax.set_title("bounded slowdown CDF" + suffix)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    save(fig, out, "slowdown_cdf")
    alone = [r for r in runs if any(float(j["latency_alone"]) > 0 for j in jobs[key(r)])]
    if alone:  # --alone: each job's mean latency in the stream against alone on the same PEs
        fig, ax = figure()
        lo, hi = float("inf"), 0.0
        for run in alone:
            k = key(run)
            pts = [(float(j["latency_alone"]), float(j["latency_mean"])) for j in jobs[k] if float(j["latency_alone"]) > 0]
            ratio = sum(y / x for x, y in pts) / len(pts)
            ax.scatter([x for x, _ in pts], [y for _, y in pts], s=14, alpha=0.7,
                       label=f"{label(k)} (in the stream / alone: {ratio:.2f}x mean)")
            lo = min([lo] + [min(x, y) for x, y in pts])
            hi = max([hi] + [max(x, y) for x, y in pts])
        ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8, linestyle="--", label="no interference (y = x)")
        if hi / max(lo, 1e-9) >= 30:
            rica_style.log_axis(ax, "x")
            rica_style.log_axis(ax, "y")
        ax.set_xlabel("mean packet latency alone on its PEs (cycles)")
        ax.set_ylabel("mean packet latency in the stream (cycles)")
        ax.set_title("interference: each job in the stream against alone on the same PEs" + suffix)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        save(fig, out, "interference")
    timed = [r for r in runs if int(r["switches"]) > 0]
    why = ("no run switched (space sharing, or a gang run whose rows never took turns)" if not timed else
           "every switch took 0 cycles and saved no packet (each found the network empty)"
           if all(float(r["switch_cycles_mean"]) == 0 and int(r["packets_saved"]) == 0 for r in timed) else "")
    if why:  # nothing to draw: no figure (and none left from an earlier run), said so
        timed = []
        for ext in (".png", ".svg"):
            if os.path.exists(os.path.join(out, "switch_cost" + ext)):
                os.remove(os.path.join(out, "switch_cost" + ext))
        print(f"rica_plot: no switch_cost figure: {why}", file=sys.stderr)
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
    # An async run's windows are in ns (its JSON's telemetry.time_unit; the CSV is R.telemetry_windows.csv
    # beside R.json): drawn in ms, throughput per PE per microsecond.
    async_, window_us = False, None
    stem = csv_path[:-len(".telemetry_windows.csv")] if csv_path.endswith(".telemetry_windows.csv") else None
    if stem and os.path.isfile(stem + ".json"):
        try:
            tel = json.load(open(stem + ".json")).get("telemetry", {})
            async_, window_us = tel.get("time_unit") == "ns", tel.get("window")
        except (ValueError, OSError, AttributeError):
            async_ = False
    scale = 1e-6 if async_ else 1.0  # ns -> ms
    rica_style.apply()
    fig, axes = plt.subplots(3, 1, figsize=(FIG_INCHES[0], FIG_INCHES[1] * 1.5), sharex=True)
    slices = sorted({int(k[2]) for k in runs if len(k) == 3 and k[2] not in ("", None)})
    panels = [("throughput", "accepted (packets/PE/µs)" if async_ else "accepted (packets/PE/cycle)"),
              ("latency_mean", "mean latency (ns)" if async_ else "mean latency (cycles)"),
              ("occupancy_words", "held at window end (words)")]
    for key, rs in sorted(runs.items()):
        edges = [int(rs[0]["begin"]) * scale] + [int(r["end"]) * scale for r in rs]  # each window over [begin, end)
        label = None
        if len(key) == 3:
            label = f"{key[0]}, rate {key[1]}" + (f", slice {key[2]}" if key[0] != "baseline" else "")
        style = {}
        if len(key) == 3 and key[2] not in ("", None) and int(key[2]) in slices:
            st = rica_style.policy_style(key[0], int(key[2]), slices)
            style = {"color": st["color"], "linestyle": st["linestyle"]}
        for ax, (col, _) in zip(axes, panels):
            y = [float(r[col]) if r[col] != "" else math.nan for r in rs]
            ax.stairs(y, edges, label=label, linewidth=1.5, **style)
    for ax, (_, ylabel) in zip(axes, panels):
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (ms of the run's clock, async engine)" if async_ else "time (cycles)")
    window = int(rows[0]["end"]) - int(rows[0]["begin"])
    what = (f"windows of at least {window_us:,} µs (async engine, the world stopped at each end)" if async_
            else f"windows of {window:,} cycles")
    rica_style.title(axes[0], title or f"telemetry over time, {what} ({os.path.basename(csv_path)})")
    if len(runs) > 1:
        axes[0].legend(fontsize=7, ncol=2)
    name = os.path.basename(csv_path)
    name = name[:-4] if name.endswith(".csv") else name
    name = name[:-len("windows")] if name.endswith("windows") else name
    name = name.rstrip("._") or "telemetry"
    save(fig, out, name)
    say(f"telemetry figure written to {os.path.join(out, name)}.png (and .svg)")


def trace(path, out, title=None, packets=12):
    """What a trace viewer (Perfetto) shows of --trace-events FILE, as a figure: the first `packets`
    sampled packets' slices (queued at the source, then at each node until it moved on), one row
    per node, one colour per packet, and each packet's flow from node to node as a line of its
    colour; FILE's stem .trace.png and .svg."""
    doc = json.load(open(path))
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list) or not events:
        raise BadInput(f"{path}: no traceEvents")
    names = {(e.get("pid"), e.get("tid")): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name" and "tid" in e}
    flows = defaultdict(list)  # id -> [(ts, row key)]: s, t..., f
    for e in events:
        if e.get("ph") in ("s", "t", "f") and e.get("cat") == "packet":
            flows[e["id"]].append((float(e["ts"]), (e.get("pid"), e.get("tid"))))
    if not flows:
        raise BadInput(f"{path}: no packet flows (a trace of rica run --trace-events)")
    chosen = sorted(flows, key=lambda i: (flows[i][0][0], str(i)))[:packets]
    lo = min(flows[i][0][0] for i in chosen)
    hi = max(max(t for t, _ in flows[i]) for i in chosen)
    span = max(hi - lo, 1.0)
    keys = sorted({k for i in chosen for _, k in flows[i]}, key=lambda k: (k[0] or 0, k[1] or 0))
    row = {k: n for n, k in enumerate(keys)}
    # Each flow's packet: the slices that start where its points are (the packet's own slices).
    at = defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "packet":
            at[(e.get("pid"), e.get("tid"), float(e["ts"]))].append(e)
    def packet_of(e):
        return (e.get("args") or {}).get("packet") or e.get("name")
    packet = {}
    for i in chosen:
        ids = [packet_of(e) for t, k in flows[i] for e in at.get((k[0], k[1], t), [])]
        if ids:
            packet[i] = max(set(ids), key=ids.count)
    wanted = set(packet.values())
    rica_style.apply()
    fig, ax = plt.subplots(figsize=(FIG_INCHES[0], max(3.0, 1.2 + 0.18 * len(keys))))
    palette = plt.get_cmap("tab20")
    colour = {pk: palette(n % 20) for n, pk in enumerate(sorted(wanted))}
    for e in events:
        if e.get("ph") != "X" or e.get("cat") != "packet" or packet_of(e) not in wanted:
            continue
        r = row.get((e.get("pid"), e.get("tid")))
        if r is None:
            continue
        ax.broken_barh([(float(e["ts"]), max(float(e.get("dur", 0)), span / 300))], (r - 0.3, 0.6),
                       facecolors=colour[packet_of(e)], alpha=0.85, edgecolor="white", linewidth=0.3)
    for i in chosen:
        pts = sorted(flows[i])
        ax.plot([t for t, _ in pts], [row[k] for _, k in pts], color=colour.get(packet.get(i), "0.3"),
                linewidth=1.0, alpha=0.9, marker=".", markersize=4)
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels([names.get(k, f"tid {k[1]}") for k in keys], fontsize=7)
    ax.set_ylim(len(keys) - 0.4, -0.6)
    note = ((doc.get("otherData") or {}).get("time_unit", "") if isinstance(doc, dict) else "")
    ax.set_xlabel("time (cycles; " + note + " in the viewer)" if "cycle" in note else "time (µs)")
    ax.grid(True, axis="x", alpha=0.3)
    from matplotlib.patches import Patch
    handles = [Patch(color=colour[pk], label=f"packet {pk}") for pk in sorted(wanted)]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
              title="source>dest#seq", title_fontsize=7)
    rica_style.title(ax, title or f"trace events: the first {len(chosen)} sampled packets' journeys, one row per node "
                     f"({os.path.basename(path)}; open the file in Perfetto for all of it)")
    name = os.path.basename(path)
    name = name[:-5] if name.endswith(".json") else name
    name = name if name.endswith("trace") else name + ".trace"
    save(fig, out, name)
    say(f"trace figure written to {os.path.join(out, name)}.png (and .svg)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="kind", required=True)
    s = sub.add_parser("sweep")
    s.add_argument("csv")
    s.add_argument("--out")
    s.add_argument("--quiet", action="store_true")
    s.add_argument("--title")
    s.add_argument("--x", choices=("accepted", "offered", "delivered"), default="accepted")
    l = sub.add_parser("links")
    l.add_argument("json")
    l.add_argument("--csv")
    l.add_argument("--out")
    l.add_argument("--quiet", action="store_true")
    o = sub.add_parser("os")
    o.add_argument("csv")
    o.add_argument("--out")
    o.add_argument("--quiet", action="store_true")
    o.add_argument("--title")
    lt = sub.add_parser("latency")
    lt.add_argument("json")
    lt.add_argument("--out")
    lt.add_argument("--quiet", action="store_true")
    t = sub.add_parser("telemetry")
    t.add_argument("csv")
    t.add_argument("--out")
    t.add_argument("--quiet", action="store_true")
    t.add_argument("--title")
    tr = sub.add_parser("trace")
    tr.add_argument("json")
    tr.add_argument("--out")
    tr.add_argument("--quiet", action="store_true")
    tr.add_argument("--title")
    st = sub.add_parser("os-stream")
    st.add_argument("csv", metavar="DIR")
    st.add_argument("--out")
    st.add_argument("--title")
    st.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    global QUIET
    QUIET = a.quiet
    src = a.json if a.kind in ("links", "latency", "trace") else a.csv
    out = a.out or (src if a.kind == "os-stream" else os.path.dirname(os.path.abspath(src)))
    os.makedirs(out, exist_ok=True)
    try:
        if a.kind == "sweep":
            sweep(a.csv, out, a.title, a.x)
        elif a.kind == "links":
            links(a.json, out, a.csv)
        elif a.kind == "latency":
            latency(a.json, out)
        elif a.kind == "telemetry":
            telemetry(a.csv, out, a.title)
        elif a.kind == "os-stream":
            os_stream(a.csv, out, a.title)
        elif a.kind == "trace":
            trace(a.json, out, a.title)
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
