"""rica from Python: topologies, runs on both engines, sweeps; results as NumPy arrays or pandas.

    import rica
    r = rica.run("torus:8x8", engine="cycle", rate=0.05, cycles=2000, seed=7, trace=True)
    r.summary["latency_mean"], r.pes["delivered"], r.trace["deliver"]
    r.frame("pe")                 # a pandas DataFrame (pandas is optional; arrays always work)
    w = rica.run("torus:8x8", engine="cycle", rate=0.05, telemetry=True)  # per window of 1000 cycles
    w.telemetry["windows"]["delivered"], w.frame("windows"), w.frame("telemetry_links")
    s = rica.sweep(["torus:8x8", "mesh:8x8"], rates="0.02:0.1:0.02", cycles=2000)
    t = rica.Topology("cccb:n=2"); t.measures(); t.route(0, 5)

Options are the CLI's (`rica run --help`, `rica sweep --help`) as keyword arguments: `link_cycles`
for --link-cycles, True for a flag (`no_classes=True`). Every value goes through the CLI's parser,
so bad input raises RicaError (a ValueError) with the CLI's one-line message. The GIL is released
while a machine runs.
"""

import os
import tempfile

from ._rica import RicaError
from . import _rica

__all__ = ["RicaError", "Result", "SweepResult", "Topology", "run", "sweep", "os_stream", "names", "list_text"]


def _argv(positional, options):
    """The CLI arguments for `positional` values and keyword `options` (one-line errors for bad keys)."""
    args = [str(p) for p in positional]
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


def _frame(columns):
    import pandas  # optional: only the DataFrame views need it

    return pandas.DataFrame(columns)


class Result:
    """One run. `summary`: the figures `rica run --json` writes (dict); `pes` and `links`: column
    dicts of NumPy arrays (per node: pe, label, injected, delivered, forwarded, blocked; per link:
    node, port, peer, packets); `trace`: per delivered packet (src, dst, seq, inject, deliver,
    hops, enter, words) when run with trace=True, else None; `status`: the CLI's exit status
    (0 ok, 1 not verified, 3 deadlock)."""

    def __init__(self, raw):
        self.summary = raw["summary"]
        self.pes = raw["pe"]
        self.links = raw["link"]
        self.hop_histogram = raw["hop_histogram"]
        self.trace = raw.get("trace")
        self.telemetry = raw.get("telemetry")
        self.status = raw["status"]

    def __getattr__(self, name):
        summary = self.__dict__.get("summary", {})
        if name in summary:
            return summary[name]
        raise AttributeError(name)

    def frame(self, table="summary"):
        """A pandas DataFrame: 'summary' (one row of scalar figures), 'pe', 'link', 'trace', or a
        telemetry table (run with telemetry=W): 'windows', 'telemetry_links', 'telemetry_classes'."""
        if table == "summary":
            return _frame({k: [v] for k, v in self.summary.items() if not isinstance(v, (dict, list))})
        telemetry = self.telemetry or {}
        columns = {"pe": self.pes, "link": self.links, "trace": self.trace, "windows": telemetry.get("windows"),
                   "telemetry_links": telemetry.get("links"),
                   "telemetry_classes": telemetry.get("classes")}.get(table, KeyError)
        if columns is KeyError:
            raise ValueError(f"table '{table}': use summary, pe, link, trace, windows, telemetry_links or "
                             "telemetry_classes")
        if columns is None:
            raise ValueError("no trace: run with trace=True" if table == "trace"
                             else "no telemetry: run with telemetry=True or telemetry=W (cycle engine)")
        return _frame(columns)

    def __repr__(self):
        s = self.summary
        return (f"<rica.Result {s.get('topology')} {s.get('engine')}: delivered {s.get('delivered')}, "
                f"latency mean {s.get('latency_mean')} {s.get('latency_unit')}>")


class SweepResult:
    """A sweep: `columns` maps topology, traffic, rate, offered, accepted, delivered,
    latency_mean, latency_p50, latency_p99, hops_mean, cycles, cycles_run, seed to one entry per
    (topology, rate), in the CLI's order."""

    def __init__(self, columns):
        self.columns = columns

    def __getitem__(self, name):
        return self.columns[name]

    def __len__(self):
        return len(self.columns["topology"])

    def frame(self):
        return _frame(self.columns)


def run(topology, *, trace=False, **options):
    """`rica run TOPOLOGY` with the CLI's options as keywords (engine, traffic, app, rate, packets,
    cycles, warmup, link_cycles, timing, arbitration, router_cycles, routing, threads, seed, buffer_words,
    packet_words, batch, block, no_classes, json, csv, trace_events, trace_events_packets). trace=True returns the per-packet table; trace="FILE"
    also keeps the file. telemetry=W (cycles; True: the default window, 1000) records the run over
    time (cycle engine): `telemetry` maps windows, links and classes to column dicts of NumPy arrays
    (the CSVs of `rica run --telemetry W`, written too when csv= or json= names a file)."""
    if "quiet" in options:
        raise RicaError("quiet: Python runs never print")
    if options.get("telemetry") is True:
        options = dict(options, telemetry=_rica.TELEMETRY_WINDOW)
    if trace is True:
        fd, path = tempfile.mkstemp(prefix="rica-trace-", suffix=".csv")
        os.close(fd)
        try:
            return Result(_rica.run(_argv([topology], dict(options, trace=path))))
        finally:
            os.unlink(path)
    if trace:
        options = dict(options, trace=trace)
    return Result(_rica.run(_argv([topology], options)))


def sweep(topologies, **options):
    """`rica sweep TOPOLOGY...` on the cycle engine (traffic, rates, jobs, cycles, warmup,
    link_cycles, timing, arbitration, router_cycles, routing, threads, seed, buffer_words, packet_words); `rates` is
    "FROM:TO:STEP", a comma list, a Python list or "auto" (placed by the channel-load bound, refined near the knee)."""
    if isinstance(topologies, str):
        topologies = [topologies]
    return SweepResult(_rica.sweep(_argv(topologies, options)))


def os_stream(topology, jobs, **options):
    """`rica os-stream TOPOLOGY --jobs JOBS` (alloc, sched, policy, job, rate, cycles_per_second,
    slice, rows, routing, threads, seed, buffer_words, packet_words, link_cycles, io_hop_cycles,
    save_rate): the JSON `--json` writes, a dict with one entry per run in "runs" (each with its
    measures and a "jobs" list). `alloc`, `sched` and `policy` take a name or a list of names."""
    return _rica.os_stream(_argv([topology], dict(options, jobs=jobs)))


class Topology:
    """A topology spec, checked at construction: spec, pes, nodes, ports, buffer_classes, direct,
    vertex_transitive; measures() (the ten measures and the routed figures, `rica topo --json`),
    route(src, dst) (`rica route --json`), label(node)."""

    def __init__(self, spec):
        d = _rica.describe(spec)
        self.spec = d["spec"]
        self.pes = d["pes"]
        self.nodes = d["nodes"]
        self.ports = d["ports"]
        self.buffer_classes = d["buffer_classes"]
        self.direct = d["direct"]
        self.vertex_transitive = d["vertex_transitive"]

    def measures(self, **options):
        """samples=, seed=, all_pairs=True as in `rica topo`."""
        return _rica.topo(_argv([self.spec], options))

    def route(self, src, dst):
        """The self-routed path: src and dst are PE numbers or labels such as "(0,0,0)"."""
        return _rica.route([self.spec, str(src), str(dst)])

    def label(self, node):
        return _rica.label(self.spec, node)

    def __repr__(self):
        return f"<rica.Topology {self.spec}: {self.pes} PEs, {self.nodes} nodes>"


def names():
    """Registered names: {'topologies': [...], 'traffic': [...], 'apps': [...], 'policies': [...]}."""
    return _rica.names()


def list_text():
    """What `rica list` prints (topologies, traffic patterns, applications)."""
    return _rica.list_text()
