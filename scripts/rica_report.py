#!/usr/bin/python3
"""rica report: one self-contained HTML page from what a rica command wrote.

Usage: scripts/rica_report.py PATH --out FILE.html

PATH is a run's JSON (rica run/demo --json), a sweep's output directory (rica sweep --out DIR, or its
sweep.csv, or the sweep's --json), an os output directory (rica os --out DIR, or its os.json) or an
experiment's output directory (rica experiment --out DIR). The page holds the configuration and
provenance, the summary tables, the figures (drawn by scripts/rica_plot.py, the one plotting module,
and inlined as SVG data: no file or network access is needed to view it), the link heat map, the
telemetry over time and, for os runs, the drain/flush timeline. It has no script; its CSS is inline.

The page is written to a temporary file beside FILE and renamed into place, so an interrupted
report leaves no half-written page. The same inputs give the same page byte for byte when the
figures are (matplotlib's SVG output is deterministic with SOURCE_DATE_EPOCH set, which this
script sets when it is not).

Exit status: 0 written (silently: rica report says where); 65 (rica_plot.BAD_INPUT) when PATH is not a rica output, after ONE line on
stderr naming it and what was expected (rica report shows that line as its error); 66 without
matplotlib.
"""
import argparse
import base64
import csv
import glob
import html
import json
import math
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("SOURCE_DATE_EPOCH", "0")  # matplotlib: no date in the SVG metadata
import rica_plot  # noqa: E402  (exits 66 without matplotlib)
from rica_plot import BAD_INPUT, BadInput, shown  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = ("a run's JSON (rica run --json FILE), or the output directory of rica sweep, rica os or "
            "rica experiment (or its sweep.csv, os.json, sweep --json)")
MAX_FIGURE_BYTES = 4 << 20  # a figure larger than this (e.g. a Graphviz drawing of a huge network) is left out
MAX_TABLE_ROWS = 2000       # rows shown of a long table (the CSV beside the page has them all)


# ---- reading ---------------------------------------------------------------------------------

def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: not JSON ({e.msg} at line {e.lineno})")
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not text (binary bytes)")


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def command_of(j):
    """The subcommand a rica JSON came from ('run', 'sweep', ...), from its command line."""
    words = str(j.get("command_line", "")).split()
    return words[1] if len(words) > 1 else ""


def detect(path):
    """(kind, json or None, directory) of a rica output; BadInput otherwise."""
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file or directory")
    if os.path.isdir(path):
        d = path
        if os.path.isfile(os.path.join(d, "os.csv")):
            j = os.path.join(d, "os.json")
            return "os", load_json(j) if os.path.isfile(j) else None, d
        if os.path.isfile(os.path.join(d, "sweep.csv")):
            return "sweep", sweep_json_in(d), d
        if os.path.isfile(os.path.join(d, "stream.csv")):  # rica os-stream --out DIR
            j = os.path.join(d, "stream.json")
            return "os-stream", load_json(j) if os.path.isfile(j) else None, d
        if os.path.isfile(os.path.join(d, "points.csv")) and os.path.isfile(os.path.join(d, "config.json")):
            return "experiment", load_json(os.path.join(d, "config.json")), d
        raise BadInput(f"{path}: a directory without os.csv, stream.csv, sweep.csv or points.csv + config.json")
    if not os.path.isfile(path):
        raise BadInput(f"{path}: not a regular file")
    d = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    if base.endswith(".csv"):
        with open(path, newline="", encoding="utf-8") as f:
            header = next(csv.reader(f), [])
        if {"topology", "offered", "latency_mean"} <= set(header):
            return "sweep", sweep_json_in(d), d
        if {"policy", "rate", "slice", "switches"} <= set(header):
            j = os.path.join(d, "os.json")
            return "os", load_json(j) if os.path.isfile(j) else None, d
        if base == "points.csv" and os.path.isfile(os.path.join(d, "config.json")):
            return "experiment", load_json(os.path.join(d, "config.json")), d
        raise BadInput(f"{path}: a CSV but not a sweep's sweep.csv, an os.csv or an experiment's points.csv")
    j = load_json(path)
    if not isinstance(j, dict):
        raise BadInput(f"{path}: JSON but not a rica report (not an object)")
    cmd = command_of(j)
    if "runs" in j and "policies" in j:  # rica os --json (its CSVs when it sits in the --out directory)
        return "os", j, d
    if cmd == "sweep" or ("points" in j and "means" in j):  # rica sweep --json (likewise)
        return "sweep", j, d if os.path.isfile(os.path.join(d, "sweep.csv")) else None
    if "topology" in j and "config" in j and "delivered" in j:
        return "run", j, d
    if cmd == "experiment" or "x_axis" in j:
        return "experiment", j, d
    raise BadInput(f"{path}: JSON but not a rica run, sweep, os or experiment report (command: "
                   f"{shown(cmd) or 'none recorded'})")


def sweep_json_in(d):
    """The sweep's --json if it was written into its directory (any *.json of rica sweep there)."""
    for p in sorted(glob.glob(os.path.join(d, "*.json"))):
        try:
            with open(p, encoding="utf-8") as f:
                j = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(j, dict) and command_of(j) == "sweep":
            return j
    return None


# ---- figures ---------------------------------------------------------------------------------

class Page:
    """The page being built: sections of HTML, figures inlined, notes on what is missing."""

    def __init__(self, title):
        self.title = title
        self.sections = []  # (id, heading, html)
        self.notes = []

    def section(self, ident, heading, body):
        if body:
            self.sections.append((ident, heading, body))


def svg_img(path, alt):
    """An <img> holding the SVG file `path` as a data URI (no file or network access to view it)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) > MAX_FIGURE_BYTES:
        return note(f"{os.path.basename(path)} left out: {len(data) >> 20} MiB of SVG (open it beside the data)")
    uri = "data:image/svg+xml;base64," + base64.b64encode(data).decode("ascii")
    return f'<img src="{uri}" alt="{html.escape(alt)}">'


def figure_html(path, caption):
    return (f"<figure>{svg_img(path, caption)}<figcaption>{html.escape(caption)}</figcaption></figure>")


def note(text):
    return f'<p class="note">{html.escape(text)}</p>'


def plot(kind, args, captions, tmp, only=False):
    """Runs scripts/rica_plot.py KIND ARGS into a fresh directory; returns the HTML of the SVG
    figures it drew (in the order of `captions`, a list of (file stem prefix, caption); with
    `only`, those alone), or a note saying why none was drawn."""
    out = tempfile.mkdtemp(dir=tmp)
    cmd = [sys.executable, os.path.join(HERE, "rica_plot.py"), kind] + args + ["--out", out]
    r = run_bounded(cmd)
    if r is None and kind == "links":
        # Graphviz's layout of a large network can take many minutes: draw the heat map without it.
        path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                               if not os.path.exists(os.path.join(p, "dot")))
        r = run_bounded(cmd, dict(os.environ, PATH=path))
        if r is not None:
            sys.stderr.write("rica report: the Graphviz drawing of the links took too long; left out\n")
    if r is None:
        return note(f"figure not drawn ({kind}): drawing took more than {PLOT_SECONDS} s")
    if r.returncode != 0:
        why = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[-1]
        sys.stderr.write(f"rica report: {kind} figure not drawn: {why}\n")
        return note(f"figure not drawn ({kind}): {why}")
    svgs = sorted(glob.glob(os.path.join(out, "*.svg")))
    parts = []
    for stem, caption in captions:
        for p in svgs:
            if os.path.basename(p).startswith(stem):
                parts.append(figure_html(p, caption))
                svgs.remove(p)
                break
    for p in [] if only else svgs:  # figures the plot module drew that no caption names: still shown
        parts.append(figure_html(p, os.path.basename(p)[:-4].replace("_", " ")))
    return "\n".join(parts)


PLOT_SECONDS = 120  # a plot (and what it starts, e.g. Graphviz) taking longer is stopped


def run_bounded(cmd, env=None):
    """Runs `cmd` in its own process group; None (the group killed) if it takes over PLOT_SECONDS."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                         start_new_session=True)
    try:
        _, err = p.communicate(timeout=PLOT_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None
    except BaseException:  # Ctrl-C: stop the drawing too
        os.killpg(p.pid, signal.SIGKILL)
        raise
    return subprocess.CompletedProcess(cmd, p.returncode, None, err)


def save_own(fig, tmp, name, tight=True):
    path = os.path.join(tmp, name + ".svg")
    if tight:
        fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    rica_plot.plt.close(fig)
    return path


def latency_figure(dist, tmp, title):
    """Histogram and CDF of the run's latencies (total and network) from its JSON."""
    parts = [(k, v) for k, v in (("total", dist.get("total")), ("network", dist.get("network")))
             if isinstance(v, dict) and v.get("count")]
    if not parts:
        return ""
    fig, (ax1, ax2) = rica_plot.plt.subplots(1, 2, figsize=(rica_plot.FIG_INCHES[0], rica_plot.FIG_INCHES[1] * 0.8))
    unit = parts[0][1].get("unit", "cycles")
    for name, d in parts:
        low, high, count, cdf = d["low"], d["high"], d["count"], d["cdf"]
        total = float(d.get("total") or sum(count))
        edges = list(low) + [high[-1]]
        dens = [c / total / max(1, h - lo) for c, lo, h in zip(count, low, high)]
        ax1.stairs(dens, edges, label=f"{name} ({int(total)} packets)", linewidth=1.5)
        ax2.step(list(high), cdf, where="post", label=name, linewidth=1.5)
    for ax in (ax1, ax2):
        ax.set_xscale("symlog", linthresh=16)
        ax.set_xlabel(f"latency ({unit})")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    ax1.set_ylabel("fraction of packets per unit")
    ax2.set_ylabel("fraction delivered within")
    ax2.set_ylim(0, 1.02)
    fig.suptitle(title, fontsize=10)
    return figure_html(save_own(fig, tmp, "latency_distribution"),
                       "Latency distribution: generation to delivery (total) and entering the network to "
                       "delivery (network); buckets as in the run's JSON latency_distribution")


def timeline_figure(d, tmp):
    """The drain/flush timeline of rica os: per run (policy, rate, slice), its context switches over
    time with their phases (drain: until every port froze; flush: until emptiness was detected; then
    saving, restoring and resuming until the last node resumed), from switches.csv."""
    sw_path = os.path.join(d, "switches.csv")
    if not os.path.isfile(sw_path):
        return ""
    runs = {}
    for r in read_csv(sw_path):
        runs.setdefault((r["policy"], float(r["rate"]), int(r["slice"])), []).append(r)
    if not runs:
        return note("no switches recorded (switches.csv is empty)")
    keys = sorted(runs)
    n = len(keys)
    fig, ax = rica_plot.plt.subplots(figsize=(rica_plot.FIG_INCHES[0], 1.6 + 0.4 * n))
    colours = ("#d95f02", "#7570b3")
    for i, k in enumerate(keys):
        first, rest = [], []
        for r in runs[k]:
            at, cycles = int(r["at"]), int(r["cycles"])
            phase = int(r["freeze"]) or int(r["detect"])
            phase = min(max(phase, 0), cycles)
            if phase:
                first.append((at, phase))
            if cycles > phase:
                rest.append((at + phase, cycles - phase))
        ax.broken_barh(first, (i - 0.35, 0.7), facecolors=colours[0])
        ax.broken_barh(rest, (i - 0.35, 0.7), facecolors=colours[1])
    ax.set_yticks(range(n))
    ax.set_yticklabels([f"{p}, rate {r:g}" + (f", slice {s}" if p != "baseline" else "") for p, r, s in keys],
                       fontsize=8)
    ax.set_ylim(n - 0.4, -0.6)
    from matplotlib.patches import Patch
    fig.legend(handles=[Patch(color=colours[0], label="drain: until every port froze; flush: until the network was empty"),
                        Patch(color=colours[1], label="saving, restoring and resuming, until the last node resumed")],
               fontsize=8, loc="lower center", ncol=1, frameon=False)
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_xlabel("time (cycles)")
    ax.set_title("context switches over time, per run")
    fig.tight_layout(rect=(0, 0.12 + 0.1 / n, 1, 1))
    return figure_html(save_own(fig, tmp, "os_timeline", tight=False),
                       "Drain/flush timeline: every context switch of every run (switches.csv), each bar from the "
                       "switch's start to the last node resumed; per node halt times are in --trace-events")


# ---- tables ----------------------------------------------------------------------------------

def fmt(v):
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        return f"{v:.6g}"
    if isinstance(v, (list, dict)):
        s = json.dumps(v)
        return s if len(s) <= 200 else s[:200] + "..."
    return "" if v is None else str(v)


def kv_table(items, cls="kv", columns=3):
    """A key-value table; a long one is split into up to `columns` side-by-side tables."""
    items = [(k, v) for k, v in items if v is not None and v != ""]
    if not items:
        return ""
    n = max(1, min(columns, math.ceil(len(items) / 10)))
    per = math.ceil(len(items) / n)
    tables = []
    for c in range(n):
        rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(fmt(v))}</td></tr>"
                       for k, v in items[c * per:(c + 1) * per])
        tables.append(f'<table class="{cls}">{rows}</table>')
    return tables[0] if n == 1 else '<div class="cols">' + "".join(tables) + "</div>"


def grid_table(rows, columns=None, limit=MAX_TABLE_ROWS):
    if not rows:
        return ""
    columns = columns or list(rows[0].keys())
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(fmt(num(r.get(c))))}</td>" for c in columns) + "</tr>"
                   for r in rows[:limit])
    more = note(f"{len(rows) - limit} more rows left out (see the CSV)") if len(rows) > limit else ""
    return f'<div class="scroll"><table class="grid"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{more}'


def num(v):
    """A CSV cell as a number when it is one (for compact formatting), else as it is."""
    if isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            try:
                return float(v)
            except ValueError:
                return v
    return v


def details(summary, body):
    return f"<details><summary>{html.escape(summary)}</summary>{body}</details>" if body else ""


PROVENANCE = ("command_line", "rica_version", "start_time", "seed", "threads")


def provenance(page, j, source):
    items = [("source", source)]
    if isinstance(j, dict):
        items += [(k, j[k]) for k in PROVENANCE if k in j]
    page.section("provenance", "Provenance", kv_table(items, columns=1) + (
        "" if isinstance(j, dict) and "command_line" in j else
        note("no provenance recorded here (give the command --json FILE to record it)")))
    if isinstance(j, dict) and isinstance(j.get("config"), dict):
        body = kv_table(sorted(j["config"].items()))
        if isinstance(j.get("model"), dict):
            body += "<h3>Model as the engine used it</h3>" + kv_table(sorted(j["model"].items()))
        page.section("configuration", "Configuration", body)


# ---- the kinds -------------------------------------------------------------------------------

RUN_SUMMARY = ("topology", "traffic", "app_spec", "engine", "pes", "nodes", "injected", "delivered", "in_network",
               "duplicates", "lost", "dropped_by_faults", "conservation_ok", "verify_method", "verified",
               "app_message", "deadlock", "hops_mean", "hops_max", "latency_unit", "latency_mean", "latency_p50",
               "latency_p99", "latency_p999", "latency_max", "net_latency_mean", "net_latency_p50",
               "net_latency_p99", "net_latency_max", "cycles_run", "cycles_skipped", "throughput", "measured",
               "link_load_max", "link_load_mean", "packets_per_s", "packet_hops_per_s", "wall_s", "peak_rss_kb")


# Per figure of a run's summary: its unit ("T": the run's latency unit, cycles or ns; "T/PE": packets
# per PE per cycle or per second) and what it is, in one line.
RUN_FIGURES = {
    "topology": ("", "the network, as its canonical spec"),
    "traffic": ("", "the traffic pattern (open-loop sources at the offered rate)"),
    "app_spec": ("", "the application run instead of traffic"),
    "engine": ("", "cycle: deterministic virtual clock; async: real threads, real time"),
    "pes": ("PEs", "processing elements (traffic sources and sinks)"),
    "nodes": ("nodes", "PEs plus router-only nodes (switches)"),
    "injected": ("packets", "packets that entered the network"),
    "delivered": ("packets", "packets delivered, each checked against its destination exactly once"),
    "in_network": ("packets", "packets still in the network when the run ended"),
    "duplicates": ("packets", "packets delivered more than once (must be 0)"),
    "lost": ("packets", "packets never delivered (must be 0)"),
    "dropped_by_faults": ("packets", "packets whose destination a fault cut off"),
    "conservation_ok": ("", "injected = delivered + in network + dropped, checked"),
    "verify_method": ("", "how delivery was verified"),
    "verified": ("", "the application's result matched its serial reference"),
    "app_message": ("", "the application's own verdict"),
    "deadlock": ("", "the run stopped with packets that could not move (a waiting cycle)"),
    "hops_mean": ("links", "mean links a delivered packet crossed"),
    "hops_max": ("links", "most links a delivered packet crossed"),
    "latency_unit": ("", "unit of every latency below"),
    "latency_mean": ("T", "mean generation-to-delivery latency (source queueing included)"),
    "latency_p50": ("T", "median latency"), "latency_p99": ("T", "99th percentile latency"),
    "latency_p999": ("T", "99.9th percentile latency"), "latency_max": ("T", "largest latency"),
    "net_latency_mean": ("T", "mean latency from entering the network to delivery"),
    "net_latency_p50": ("T", "median network latency"), "net_latency_p99": ("T", "99th percentile network latency"),
    "net_latency_max": ("T", "largest network latency"),
    "cycles_run": ("cycles", "virtual cycles until the last delivery (window + drain)"),
    "cycles_skipped": ("cycles", "idle cycles the engine jumped over"),
    "throughput": ("T/PE", "accepted throughput: packets delivered per PE in the measured window"),
    "rate": ("T/PE", "offered load: injection probability per PE per cycle (cycle engine)"),
    "measured": ("packets", "deliveries counted in the measured window (after the warm-up)"),
    "link_load_max": ("packets", "packets over the busiest directed link"),
    "link_load_mean": ("packets", "mean packets per directed link"),
    "packets_per_s": ("packets/s", "host speed: packets delivered per wall-clock second"),
    "packet_hops_per_s": ("hops/s", "host speed: packet hops per wall-clock second"),
    "wall_s": ("s", "host wall-clock time of the run"),
    "peak_rss_kb": ("KiB", "peak resident memory of the process"),
}


def figure_rows(j, keys):
    """The summary as rows of (figure, value, unit, what it is), units resolved for this run."""
    lat = j.get("latency_unit", "")
    per = "packets/PE/cycle" if lat == "cycles" else "packets/PE/s"
    rows = []
    for k in keys:
        if k not in j or j[k] is None or isinstance(j[k], (dict, list)):
            continue
        unit, what = RUN_FIGURES.get(k, ("", ""))
        unit = {"T": lat, "T/PE": per}.get(unit, unit)
        rows.append({"figure": k, "value": fmt(j[k]), "unit": unit, "what it is": what})
    return rows


def saturation_flag(j):
    """HTML flagging a cycle-engine traffic run whose accepted throughput fell below 0.85 of the
    offered load (the saturation test rica sweep uses), or saying it held; '' when not applicable."""
    rate, acc = j.get("rate"), j.get("throughput")
    if not j.get("traffic") or j.get("latency_unit") != "cycles" or not isinstance(rate, (int, float)) \
            or not isinstance(acc, (int, float)) or rate <= 0:
        return ""
    window = (j.get("model") or {}).get("cycles")
    ppe = j.get("packets_per_pe")
    if isinstance(window, (int, float)) and isinstance(ppe, (int, float)) and ppe < 0.95 * rate * window:
        return note(f"offered {rate:.4g} packets/PE/cycle, accepted {acc:.4g}: the sources had {ppe} packets each, "
                    f"fewer than the {window}-cycle window offers, so accepted is not a saturation measure")
    share = acc / rate
    if share < 0.85:
        return (f'<p class="flag">Saturated: offered {rate:.4g} packets/PE/cycle, accepted {acc:.4g} '
                f'({100 * share:.0f} % of it, below the 0.85 rica sweep calls saturated). The network did not carry '
                f'the load; latencies include the time packets waited at their sources.</p>')
    return f'<p class="ok">Not saturated: accepted {acc:.4g} of the {rate:.4g} packets/PE/cycle offered ' \
           f'({100 * share:.0f} %).</p>'


def model_lines(j):
    """The link-time model in a sentence, where the run's links take more than one cycle."""
    m = j.get("model") or {}
    text = m.get("link_model")
    return note(f"link time: {text}") if text and "pin-limited" in text else ""


def replay_body(r, tmp):
    """A replayed MPI program (rica replay, docs/replay.md): per-rank time split, the critical path,
    the message latencies, from the JSON's "replay" object."""
    items = [(k, r[k]) for k in ("trace", "ranks", "map", "p2p_messages", "bytes", "packets", "collective_messages",
                                 "makespan", "recorded_wall_s", "emulated_s", "communication_share", "compute_share")
             if k in r]
    body = kv_table(items)
    per = r.get("per_rank") or []
    if per:
        fig, ax = rica_plot.plt.subplots(figsize=(rica_plot.FIG_INCHES[0], max(2.0, min(8.0, 0.18 * len(per) + 1.2))))
        ranks = [x["rank"] for x in per]
        comp = [x["compute"] for x in per]
        block = [x["blocked"] for x in per]
        rest = [max(0, x["finish"] - x["compute"] - x["blocked"]) for x in per]
        ax.barh(ranks, comp, label="compute", color="#4c72b0")
        ax.barh(ranks, block, left=comp, label="blocked in communication", color="#dd8452")
        ax.barh(ranks, rest, left=[a + b for a, b in zip(comp, block)], label="other (calls, sends)", color="#bbbbbb")
        ax.set_xlabel("cycles")
        ax.set_ylabel("rank")
        ax.invert_yaxis()
        ax.legend(fontsize=8)
        body += figure_html(save_own(fig, tmp, "replay_ranks"),
                            "Each rank's time until it finished: compute gaps, blocked in communication, the rest")
        body += details("Per rank", grid_table(per))
    cp = r.get("critical_path") or {}
    if cp.get("steps"):
        body += (f"<h3>Critical path: {cp.get('length')} cycles, {cp.get('local')} local and "
                 f"{cp.get('communication')} in communication ({cp.get('steps_total')} steps)</h3>")
        body += grid_table(cp["steps"])
    lat = r.get("message_latency") or {}
    if lat.get("histogram"):
        body += "<h3>Message latency (send start to last packet, cycles)</h3>"
        body += kv_table([(k, lat[k]) for k in ("messages", "mean", "p50", "p90", "p99", "max") if k in lat])
        body += grid_table(lat["histogram"])
    if r.get("deadlock"):
        body += "<h3>Deadlock: the waiting ranks</h3><pre>" + html.escape("\n".join(r["deadlock"])) + "</pre>"
    return body


def run_report(page, j, d, src, tmp):
    page.title = f"rica report: {command_of(j) or 'run'} {j.get('topology', '')}"
    provenance(page, j, src)
    shown = [k for k in RUN_SUMMARY if k in j] + (["rate"] if "rate" in j else [])
    others = [(k, v) for k, v in sorted(j.items())
              if k not in shown and k not in PROVENANCE and not isinstance(v, (dict, list)) and v is not None]
    body = saturation_flag(j) + model_lines(j) + grid_table(figure_rows(j, shown)) + \
        details("Every other figure of the JSON", kv_table(others))
    seeds = j.get("seeds")
    if isinstance(seeds, dict) and isinstance(seeds.get("figures"), dict):
        body += f"<h3>{seeds.get('count')} seeds from {seeds.get('first')}: mean and 95% CI half-width</h3>"
        body += grid_table([{"figure": k, "mean": v.get("mean"), "ci95": v.get("ci95"), "values": v.get("values")}
                            for k, v in seeds["figures"].items()])
    if j.get("deadlock_report"):
        body += f"<h3>Deadlock</h3><pre>{html.escape(str(j['deadlock_report']))}</pre>"
    page.section("summary", "Summary", body)
    if isinstance(j.get("replay"), dict):  # a replayed MPI program: its own section
        page.section("replay", "Replayed MPI program", replay_body(j["replay"], tmp))
    elif isinstance(j.get("app"), dict) and j.get("app"):
        page.section("application", "Application figures", kv_table(sorted(j["app"].items())))
    dist = j.get("latency_distribution")
    if isinstance(dist, dict):
        body = latency_figure(dist, tmp, f"{j.get('topology', '')}: latency distribution")
        if dist.get("classes") or dist.get("jobs"):  # per class / job: rica plot latency's figures
            stem = os.path.basename(src)[:-5] if src.endswith(".json") else os.path.basename(src)
            body += plot("latency", [src], [(f"{stem}.latency_classes", "Latency per buffer class (the class a packet "
                                             "is delivered from): histogram and CDF, total solid, network dashed"),
                                            (f"{stem}.latency_jobs", "Latency per job: histogram and CDF")], tmp,
                         only=True)
        page.section("latency", "Latency distribution", body)
    # The link heat map (needs the per-PE and per-link CSVs, rica run --csv).
    outputs = j.get("outputs") or {}
    pe_csv = resolve(outputs.get("csv"), d)
    if pe_csv:
        stem = os.path.basename(src)[:-5] if src.endswith(".json") else os.path.basename(src)
        body = plot("links", [src, "--csv", pe_csv], [(f"{stem}.links", "Link load: utilisation of every directed link "
                                                       "(busy cycles / cycles run, 0 to 1; heat map)")], tmp)
    else:
        body = note("no per-PE CSV recorded: run with --csv FILE to get the link heat map")
    page.section("links", "Link heat map", body)
    tel = j.get("telemetry")
    if isinstance(tel, dict):
        files = [resolve(f, d) for f in tel.get("files", [])]
        windows = next((f for f in files if f and f.endswith("windows.csv")), None)
        body = kv_table([(k, v) for k, v in sorted(tel.items()) if k != "files"])
        if windows:
            body += plot("telemetry", [windows], [("", "Telemetry over time: accepted throughput, mean latency and "
                                                       "words held per window")], tmp)
            classes = next((f for f in files if f and f.endswith("classes.csv")), None)
            if classes:
                body += details("Per buffer class and window (telemetry classes CSV)", grid_table(read_csv(classes)))
        else:
            body += note("telemetry CSVs not written (give --csv or --json FILE with --telemetry W)")
        page.section("telemetry", "Telemetry over time", body)
    # The trace picture: the file the run's JSON names (--trace-events FILE).
    te = j.get("trace_events")
    if isinstance(te, dict):
        trace = resolve(te.get("file"), d)
        if trace:
            name = os.path.basename(trace)
            name = name[:-5] if name.endswith(".json") else name
            name = name if name.endswith("trace") else name + ".trace"
            body = plot("trace", [trace], [(name, "The first sampled packets' journeys, one row per node, as a trace "
                                                  "viewer shows them (open the file in Perfetto for all of it)")], tmp)
        else:
            body = note(f"trace events file {te.get('file')} not found beside the report")
        page.section("trace", "Packet trace", body)


def resolve(path, d):
    """A file a report names: as recorded, else beside the report (outputs moved together)."""
    if not path or path == "-":
        return None
    if os.path.isfile(path):
        return path
    p = os.path.join(d, os.path.basename(path))
    return p if os.path.isfile(p) else None


def sweep_summary(j, d):
    """Per network the sweep's own summary (rica sweep computes zero-load latency, saturation and
    knee once, apps/experiments/saturation.cpp; this page only shows them): the JSON's "summary",
    else sweep_summary.csv beside sweep.csv; [] when the sweep has neither."""
    rows = (j or {}).get("summary") or []
    if not rows and d and os.path.isfile(os.path.join(d, "sweep_summary.csv")):
        rows = read_csv(os.path.join(d, "sweep_summary.csv"))
    out = []
    for r in rows:
        def num(k):
            v = r.get(k, "")
            return "-" if v in ("", None) else float(v)
        sat = str(r.get("saturated", "")).lower() in ("1", "true")
        knee = num("knee")
        reached = str(r.get("knee_reached", "")).lower() in ("1", "true")
        routing = r.get("routing") or "deterministic"
        out.append({"network": r.get("topology", ""), "routing": routing, "rates": r.get("rates", ""),
                    "zero-load latency (cycles)": num("zero_load_latency"),
                    "saturation throughput (packets/PE/cycle)": num("saturation"),
                    "saturated at offered": num("saturation_offered") if sat else "-",
                    "knee (packets/PE/cycle)": knee if reached or knee == "-" else f">= {knee:.4g}",
                    "channel-load bound (its routing's)": num("bound")})
    if all(o["routing"] == "deterministic" for o in out):
        for o in out:
            del o["routing"]
    return out


def sweep_report(page, j, d, src, tmp):
    csv_path = os.path.join(d, "sweep.csv") if d else None
    rows = read_csv(csv_path) if csv_path and os.path.isfile(csv_path) else (j or {}).get("points", [])
    if not rows:
        raise BadInput(f"{src}: a sweep without points")
    page.title = f"rica report: sweep of {', '.join(sorted({r['topology'] for r in rows}))}"
    provenance(page, j, src)
    summary = sweep_summary(j, d)
    page.section("summary", "Summary per network", (grid_table(summary) + note(
        "as rica sweep computed them (sweep_summary.csv): zero-load = mean latency at the lowest rate; saturated at "
        "the first rate whose latency passes 3x zero-load or whose accepted throughput falls below 0.85 of offered; "
        "knee = accepted throughput where the latency reaches 3x zero-load; bound = rica bound's channel-load bound"))
                 if summary else note("this sweep has no summary (sweep_summary.csv absent: run rica sweep again)"))
    if csv_path and os.path.isfile(csv_path):
        body = plot("sweep", [csv_path], [("latency_vs_accepted", "Mean latency against accepted throughput"),
                                          ("latency_vs_offered", "Mean latency against offered load"),
                                          ("latency_vs_delivered", "Mean latency against packets delivered")], tmp)
    else:
        body = note("sweep.csv not found beside the JSON: figures need the sweep's --out directory")
    page.section("figures", "Figures", body)
    mean_csv = os.path.join(d, "sweep_mean.csv") if d else None
    table = read_csv(mean_csv) if mean_csv and os.path.isfile(mean_csv) else rows
    page.section("points", "Points", details(f"{len(table)} points (sweep_mean.csv: mean and 95% CI over seeds)"
                                             if table is not rows else f"{len(rows)} points", grid_table(table)))


def os_report(page, j, d, src, tmp):
    csv_path = os.path.join(d, "os.csv")
    rows = read_csv(csv_path) if os.path.isfile(csv_path) else []
    page.title = f"rica report: os {(j or {}).get('topology', '')}".rstrip()
    provenance(page, j, src)
    body = ""
    if isinstance(j, dict):
        body += kv_table([(k, j[k]) for k in ("topology", "partition", "jobs", "faults") if k in j])
        if isinstance(j.get("policies"), dict):
            body += "<h3>Per policy, over its runs</h3>" + grid_table(
                [dict(policy=k, **v) for k, v in j["policies"].items()])
    if rows:
        body += "<h3>Per run (os.csv)</h3>" + grid_table(rows)
    page.section("summary", "Summary", body)
    if rows:
        page.section("figures", "Figures", plot("os", [csv_path], [("switch_cost", "Cycles per context switch"),
                                                                   ("completion", "Completion against back-to-back")],
                                                tmp))
    else:
        page.section("figures", "Figures", note("os.csv not found beside the JSON: figures need rica os --out DIR"))
    page.section("timeline", "Drain/flush timeline", timeline_figure(d, tmp))
    os_json = os.path.join(d, "os.json")
    if isinstance(j, dict) and any(isinstance(r, dict) and (r.get("latency_distribution") or {}).get("jobs")
                                   for r in j.get("runs", [])) and os.path.isfile(os_json):
        page.section("latency", "Latency per job",
                     plot("latency", [os_json], [("os.latency_jobs", "Latency per job and run: histogram and CDF "
                                                  "of generation to delivery")], tmp, only=True))
    tw = os.path.join(d, "telemetry_windows.csv")
    if os.path.isfile(tw):
        page.section("telemetry", "Telemetry over time",
                     plot("telemetry", [tw], [("", "Telemetry over time per run: throughput, latency and words held "
                                                   "per window")], tmp))


STREAM_COLUMNS = {  # stream.csv's figures: unit and what each is
    "makespan": ("cycles", "first arrival to last completion"),
    "utilisation": ("0-1", "PE-cycles busy / PE-cycles of the makespan"),
    "mean_wait": ("cycles", "arrival to start, mean over jobs"),
    "mean_bounded_slowdown": ("", "max(1, (wait + run) / max(run, 10 cycles)), mean over jobs"),
    "switches": ("", "context switches (gang scheduling)"),
    "switch_cycles": ("cycles", "cycles spent switching"),
}


def os_stream_report(page, j, d, src, tmp):
    """rica os-stream --out DIR: per run (allocator, scheduler, policy) its figures, the Gantt chart
    of every run, utilisation over time, bounded-slowdown CDFs and the switch cost."""
    runs = read_csv(os.path.join(d, "stream.csv"))
    page.title = f"rica report: os-stream {(j or {}).get('topology', '')}".rstrip()
    provenance(page, j, src)
    body = ""
    if isinstance(j, dict):
        body += kv_table([(k, j[k]) for k in ("topology", "jobs", "workload", "machine_pes") if k in j and
                          not isinstance(j[k], (dict, list))])
    if runs:
        known = [c for c in STREAM_COLUMNS if c in runs[0]]
        body += "<h3>Per run (stream.csv)</h3>" + grid_table(runs)
        if known:
            body += details("What the columns are", grid_table([{"column": c, "unit": STREAM_COLUMNS[c][0],
                                                                  "what it is": STREAM_COLUMNS[c][1]} for c in known]))
    page.section("summary", "Summary", body or note("stream.csv has no runs"))
    gantt = sorted({f"gantt_{r.get('alloc')}_{r.get('sched')}_{r.get('policy')}" for r in runs})
    captions = [(g, "Gantt chart: " + g[len("gantt_"):].replace("_", ", ") + " (jobs on PEs over time)")
                for g in gantt]
    captions += [("utilisation", "Utilisation over time: busy PEs / PEs, per run"),
                 ("slowdown_cdf", "Bounded slowdown per job: CDF per run"),
                 ("switch_cost", "Context-switch cost per run"),
                 ("interference", "Interference: each job's latency in the stream against alone on its PEs")]
    page.section("figures", "Figures", plot("os-stream", [d], captions, tmp))
    jobs = os.path.join(d, "jobs.csv")
    if os.path.isfile(jobs):
        page.section("jobs", "Jobs", details("Every job of every run (jobs.csv)", grid_table(read_csv(jobs))))


def experiment_report(page, j, d, src, tmp):
    name = (j or {}).get("setup") or (j or {}).get("name") or os.path.basename(os.path.abspath(d))
    page.title = f"rica report: experiment {name}"
    provenance(page, j, src)
    body = ""
    table = os.path.join(d, "table.csv")
    if os.path.isfile(table):
        body += grid_table(read_csv(table))
    elif os.path.isfile(os.path.join(d, "table.md")):
        with open(os.path.join(d, "table.md"), encoding="utf-8") as f:
            body += f"<pre>{html.escape(f.read())}</pre>"
    page.section("summary", "Summary table", body)
    svgs = sorted(glob.glob(os.path.join(d, "*.svg")))
    if not svgs:  # not drawn yet (--no-plot): draw them now
        out = tempfile.mkdtemp(dir=tmp)
        r = subprocess.run([sys.executable, os.path.join(HERE, "plot_experiment.py"), os.path.join(d, "points.csv"),
                            "--config", os.path.join(d, "config.json"), "--out", out],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        svgs = sorted(glob.glob(os.path.join(out, "*.svg")))
        if r.returncode != 0:
            page.notes.append(f"figures not drawn: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    page.section("figures", "Figures", "\n".join(figure_html(p, os.path.basename(p)[:-4]) for p in svgs))
    points = read_csv(os.path.join(d, "points.csv"))
    page.section("points", "Points", details(f"{len(points)} points (points.csv)", grid_table(points)))


# ---- the page --------------------------------------------------------------------------------

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;padding:1em 2em;
color:#1a1a1a;background:#fff;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
h3{font-size:1.05em}
nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4em 1.2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}
table.grid td{text-align:right;font-variant-numeric:tabular-nums}table.grid thead th{background:#f3f3f3;position:sticky;top:0}
table.kv th{background:#f7f7f7;font-weight:600;white-space:nowrap}
table.kv td{word-break:break-word}
.scroll{max-height:32em;overflow:auto}
.cols{display:flex;flex-wrap:wrap;gap:0 1.5em;align-items:flex-start}
figure{margin:1em 0}figure img{max-width:100%;max-height:1100px;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#444}
.note{color:#8a4b00;font-size:.9em}
.flag{background:#fdecea;border-left:4px solid #c62828;padding:.4em .8em;font-weight:600}
.ok{background:#edf7ed;border-left:4px solid #2e7d32;padding:.4em .8em}
.cols,table.kv{max-width:100%;overflow-x:auto}section{overflow-x:auto}
footer{margin-top:2em;font-size:.8em;color:#666}
pre{background:#f7f7f7;padding:.5em;overflow:auto;font-size:.85em}
"""


def render(page, kind, src):
    toc = "".join(f'<li><a href="#{i}">{html.escape(h)}</a></li>' for i, h, _ in page.sections)
    body = "\n".join(f'<section id="{i}"><h2>{html.escape(h)}</h2>\n{b}\n</section>' for i, h, b in page.sections)
    notes = "".join(note(n) for n in page.notes)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(page.title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            f'<header><h1>{html.escape(page.title)}</h1><p>A {kind} report from <code>{html.escape(src)}</code>, '
            f"written by <code>rica report</code>; every figure below is drawn from the files named here.</p>"
            f"</header>\n<nav><ul>{toc}</ul></nav>\n{notes}{body}\n"
            f"<footer>rica report ({kind}); self-contained: figures are inline SVG, nothing is fetched.</footer>\n"
            f"</body>\n</html>\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    src = a.path
    try:
        kind, j, d = detect(src)
        with tempfile.TemporaryDirectory(prefix="rica-report-") as tmp:
            page = Page("rica report")
            {"run": run_report, "sweep": sweep_report, "os": os_report, "os-stream": os_stream_report,
             "experiment": experiment_report}[kind](
                page, j, d, src, tmp)
            text = render(page, kind, src)
        out_dir = os.path.dirname(os.path.abspath(a.out))
        os.makedirs(out_dir, exist_ok=True)  # as every output option: missing parents are created
        fd, part = tempfile.mkstemp(prefix=".report-", suffix=".part", dir=out_dir)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(part, 0o666 & ~umask)  # as an ordinary file would be (mkstemp makes it 0600)
            os.replace(part, a.out)
        except BaseException:
            os.unlink(part)
            raise
    except BadInput as e:
        bad_input(str(e))
    except KeyError as e:
        bad_input(f"{src}: no field {shown(e.args[0] if e.args else e)}")
    except UnicodeDecodeError:
        bad_input(f"{src}: not text (binary bytes)")
    except (ValueError, TypeError, IndexError, AttributeError, csv.Error) as e:
        bad_input(f"{src}: unexpected content ({shown(e)})")
    except OSError as e:
        sys.stderr.write(f"{e.filename or src}: cannot read or write ({e.strerror or e})\n")
        sys.exit(BAD_INPUT)


def bad_input(why):
    sys.stderr.write(f"{why}; expected {EXPECTED}\n")
    sys.exit(BAD_INPUT)


if __name__ == "__main__":
    main()
