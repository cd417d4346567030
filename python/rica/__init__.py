"""rica from Python: every subcommand as a function; results as NumPy arrays or pandas.

    import rica
    r = rica.run("torus:8x8", engine="cycle", rate=0.05, cycles=2000, seed=7, trace=True)
    r.summary["latency_mean"], r.pes["delivered"], r.trace["deliver"]
    r.frame("pe")                 # a pandas DataFrame (pandas is optional; arrays always work)
    w = rica.run("torus:8x8", engine="cycle", rate=0.05, telemetry=True, telemetry_links=True)  # per 1000 cycles
    w.telemetry["windows"]["delivered"], w.frame("windows"), w.frame("telemetry_links")
    s = rica.sweep(["torus:8x8", "mesh:8x8"], rates="0.02:0.1:0.02", cycles=2000, seeds=3)
    s.frame(), s.means["latency_ci95"]   # per point over its seeds: means and 95% intervals
    rica.os("torus:8x8", parts=4, packets=20), rica.partition("cccb:n=4", parts=4),
    rica.embed("tree", "ubruijn:6"), rica.experiment("mdce-delta", cycles=500), rica.bound("torus:8x8"),
    rica.topo("cccb:n=2"), rica.route("cccb:n=2", 0, 5)
    t = rica.Topology("cccb:n=2"); t.measures(); t.route(0, 5)

One function per subcommand (run, sweep, os, partition, embed, experiment, bound, topo, route),
its options those of `rica <command> --help` as keyword arguments (each function's docstring lists
them, generated from the CLI's option table and registrations: `rica.options("run")`): `link_cycles` for
--link-cycles, True for a flag (`no_classes=True`), a list for a comma list; `config="r.json"`
seeds any of them from a JSON report or options file as `--config` does. Every value goes through
the CLI's own parsers and checks, so bad input raises RicaError (a ValueError) with the CLI's
one-line message. The GIL is released while a machine runs; Ctrl-C stops a cycle-engine run
within a cycle and raises KeyboardInterrupt, with no output file written.

The native module (rica._rica) is built for one interpreter: `rica.BUILT_FOR` names it.
"""

import json as _json
import os as _os
import shutil as _shutil
import sys as _sys
import tempfile as _tempfile

from ._build import PYTHON as _BUILT_PYTHON, PYTHON_VERSION as _BUILT_VERSION

BUILT_FOR = f"Python {_BUILT_VERSION} ({_BUILT_PYTHON}) with NumPy"


def _wrong_interpreter(missing):
    here = f"{_sys.version_info.major}.{_sys.version_info.minor}"
    return ImportError(
        f"rica: {missing}; rica's native module was built for Python {_BUILT_VERSION} ({_BUILT_PYTHON}) with "
        f"NumPy, and this is Python {here} ({_sys.executable}): run it with {_BUILT_PYTHON}, or rebuild rica with "
        f"-DPython3_EXECUTABLE={_sys.executable}")


try:
    import numpy as _numpy  # noqa: F401  (the tables are NumPy arrays)
except ImportError as _e:
    raise _wrong_interpreter(f"NumPy cannot be imported ({_e})") from None
try:
    from . import _rica
except ImportError as _e:
    raise _wrong_interpreter(f"the native module rica._rica cannot be loaded ({_e})") from None

from ._rica import RicaError

__version__ = _rica.VERSION

__all__ = ["RicaError", "Result", "RunResult", "SweepResult", "CommandResult", "Topology", "run", "replay", "sweep", "os",
           "os_stream", "partition", "embed", "experiment", "bound", "topo", "route", "load_extension", "names",
           "list_text", "options", "BUILT_FOR", "__version__"]


def _argv(positional, options):
    """The CLI arguments for `positional` values and keyword `options`."""
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


def _no_quiet(options):
    if "quiet" in options:
        raise RicaError("quiet: Python calls never print")


def _frame(columns):
    import pandas  # optional: only the DataFrame views need it

    return pandas.DataFrame(columns)


def _html_table(title, rows):
    """A small HTML table of (name, value) rows, for notebooks."""
    from html import escape

    cells = "".join(f"<tr><th style='text-align:left'>{escape(str(k))}</th><td>{escape(str(v))}</td></tr>"
                    for k, v in rows)
    return f"<div><b>{escape(title)}</b><table>{cells}</table></div>"


class Result:
    """What every rica function returns (run, sweep, os, os_stream, partition, embed, experiment,
    bound, topo, route): one shape.

    `summary`  the command's JSON report as a dict (what `rica COMMAND --json` writes);
    `frame(name)`  one of its tables as a pandas DataFrame, `tables` the names it has;
    `status`   the CLI's exit status (0 ok; run: 1 not verified, 3 deadlock);
    `command`  the subcommand ("run", "sweep", ...).
    It reads as the summary too: r["key"], r.get("key"), "key" in r, r.keys() (a sweep's r["column"]
    is its points' column). Nothing is printed: the figures are in the result."""

    command = ""
    tables = ("summary",)
    status = 0
    summary = {}

    def frame(self, name="summary"):
        """The table `name` (one of `tables`) as a pandas DataFrame."""
        if name != "summary":
            raise ValueError(f"table '{name}': use {', '.join(self.tables)}")
        return _frame({k: [v] for k, v in self.summary.items() if not isinstance(v, (dict, list))})

    def __getitem__(self, key):
        return self.summary[key]

    def __contains__(self, key):
        return key in self.summary

    def get(self, key, default=None):
        return self.summary.get(key, default)

    def keys(self):
        return self.summary.keys()

    def items(self):
        return self.summary.items()

    def __iter__(self):  # a Result reads as its summary dict: keys, `in`, comparison with a dict
        return iter(self.summary)

    def __len__(self):
        return len(self.summary)

    def __eq__(self, other):
        if isinstance(other, Result):
            return self.summary == other.summary
        return self.summary == other if isinstance(other, dict) else NotImplemented

    __hash__ = None

    def values(self):
        return self.summary.values()


class RunResult(Result):
    """One run (rica.run). `spec`: the topology spec as given; `topology`: its canonical form (the run's
    JSON); `engine`; `summary`: the figures `rica run --json` writes (dict); `pes` and `links`:
    column dicts of NumPy arrays (per node: pe, label, injected, delivered, forwarded, blocked; per
    link: node, port, peer, packets); `trace`: per delivered packet (src, dst, seq, inject,
    deliver, hops, enter, words) when run with trace=True, else None; `status`: the CLI's exit
    status (0 ok, 1 not verified, 3 deadlock). Tables: summary, pe, link, trace, windows,
    telemetry_classes, telemetry_links (those the run recorded)."""

    command = "run"

    def __init__(self, raw, spec):
        self.summary = raw["summary"]
        self.spec = spec
        self.pes = raw["pe"]
        self.links = raw["link"]
        self.hop_histogram = raw["hop_histogram"]
        self.trace = raw.get("trace")
        self.telemetry = raw.get("telemetry")
        self.status = raw["status"]
        telemetry = self.telemetry or {}
        self.tables = tuple(["summary", "pe", "link"] + (["trace"] if self.trace is not None else []) +
                            [n for n, k in (("windows", "windows"), ("telemetry_classes", "classes"),
                                            ("telemetry_links", "links")) if telemetry.get(k) is not None])

    @property
    def engine(self):
        return self.summary.get("model", {}).get("engine")

    @property
    def replay(self):
        """A replayed MPI program's figures (rica.replay, docs/replay.md): the JSON's "replay"
        object, or None for other runs."""
        return self.summary.get("replay")

    def __getattr__(self, name):
        summary = self.__dict__.get("summary", {})
        if name in summary:
            return summary[name]
        raise AttributeError(name)

    def frame(self, table="summary"):  # noqa: D102  (Result.frame, with the run's tables)
        """A pandas DataFrame: 'summary' (one row of scalar figures, `spec` as given beside the
        canonical `topology`), 'pe', 'link', 'trace', or a telemetry table (run with telemetry=W):
        'windows', 'telemetry_classes', and 'telemetry_links' (with telemetry_links=True too)."""
        if table == "summary":
            row = {"spec": [self.spec], "engine": [self.engine]}
            row.update({k: [v] for k, v in self.summary.items() if not isinstance(v, (dict, list))})
            return _frame(row)
        telemetry = self.telemetry or {}
        columns = {"pe": self.pes, "link": self.links, "trace": self.trace, "windows": telemetry.get("windows"),
                   "telemetry_links": telemetry.get("links"),
                   "telemetry_classes": telemetry.get("classes")}.get(table, KeyError)
        if columns is KeyError:
            raise ValueError(f"table '{table}': use summary, pe, link, trace, windows, telemetry_links or "
                             "telemetry_classes")
        if columns is None:
            raise ValueError("no trace: run with trace=True" if table == "trace"
                             else "no per-link telemetry: run with telemetry=W and telemetry_links=True"
                             if table == "telemetry_links" and self.telemetry
                             else "no telemetry: run with telemetry=True or telemetry=W")
        return _frame(columns)

    def __repr__(self):
        s = self.summary
        return (f"<rica.RunResult {self.spec} ({s.get('topology')}) engine {self.engine}: delivered "
                f"{s.get('delivered')}, latency mean {s.get('latency_mean')} {s.get('latency_unit')}>")

    def _repr_html_(self):
        s = self.summary
        keys = ["delivered", "injected", "latency_mean", "latency_p99", "throughput", "hops_mean", "deadlock"]
        return _html_table(f"rica run {self.spec}",
                           [("topology", s.get("topology")), ("engine", self.engine), ("status", self.status)] +
                           [(k, s[k]) for k in keys if k in s])


class SweepResult(Result):
    """A sweep (rica.sweep): `columns` maps spec (as given), topology (canonical), traffic, rate, offered,
    accepted, delivered, latency_mean, latency_p50, latency_p99, hops_mean, cycles, cycles_run,
    seed to one entry per (topology, rate, seed), in the CLI's order; `means` maps spec,
    topology, traffic, rate, offered, seeds, generated_mean, accepted_mean, accepted_ci95,
    latency_mean, latency_ci95, latency_p99_mean, latency_p99_ci95, hops_mean to one entry per
    (topology, rate): the mean over its seeds and the 95% confidence half-width (Student t), as
    `rica sweep` writes sweep_mean.csv. With routing="a,b": one series per (topology, routing), its
    `routing` column saying which (never averaged as seeds). `summary`: {"points": one dict per run,
    "means": one per point}, as the sweep's --json holds them. Tables: points, means. r["column"] is
    the points' column."""

    command = "sweep"
    tables = ("points", "means")

    def __init__(self, columns, specs):
        self.means = columns.pop("means")
        self.columns = columns
        for table in (self.columns, self.means):
            n = len(table["topology"])
            per = n // len(specs) if specs else 0  # the CLI's order: every row of a topology together
            table["spec"] = [specs[i // per] for i in range(n)] if per else []

    @property
    def summary(self):
        def records(table):
            keys = list(table)
            n = len(table["topology"])
            return [{k: (table[k][i].item() if hasattr(table[k][i], "item") else table[k][i]) for k in keys}
                    for i in range(n)]
        return {"points": records(self.columns), "means": records(self.means)}

    def __getitem__(self, name):
        return self.columns[name]

    def __contains__(self, name):  # as r[name]: the points' columns
        return name in self.columns

    def __len__(self):
        return len(self.columns["topology"])

    def frame(self, table="points"):
        """A pandas DataFrame: 'points' (one row per run) or 'means' (per point over its seeds)."""
        if table not in ("points", "means"):
            raise ValueError(f"table '{table}': use points or means")
        return _frame(self.columns if table == "points" else self.means)

    def __repr__(self):
        specs = sorted(set(self.columns["spec"]))
        return f"<rica.SweepResult {len(self)} runs, {len(self.means['topology'])} points: {', '.join(specs)}>"

    def _repr_html_(self):
        m = self.means
        rows = [(f"{m['spec'][i]} rate {m['rate'][i]:.4g}",
                 f"accepted {m['accepted_mean'][i]:.4g} ± {m['accepted_ci95'][i]:.2g}, latency "
                 f"{m['latency_mean'][i]:.4g} ± {m['latency_ci95'][i]:.2g}") for i in range(len(m["topology"]))]
        return _html_table("rica sweep", rows)


class CommandResult(Result):
    """What a subcommand reported (os, os_stream, partition, embed, experiment, bound, topo, route):
    `summary` (also `data`), its JSON report (`rica <command> --json`) as a dict, also by key
    (r["config"]); `command` and `args`; `status`, the CLI's exit status; `out`, the directory of
    its files when out= was given (else the files were in a temporary directory, removed). Tables:
    'summary', and every list of records (or dict of columns) in the report by its key
    (`tables` names them: os "runs", experiment "table", bound "bounds", ...)."""

    def __init__(self, command, args, status, data, out):
        self.command, self.args, self.status, self.data, self.out = command, args, status, data, out
        self.summary = data
        self.tables = ("summary",) + tuple(k for k, v in data.items() if
                                           (isinstance(v, list) and v and isinstance(v[0], dict)) or
                                           (isinstance(v, dict) and v and all(isinstance(c, list) for c in v.values())))

    def frame(self, key="summary"):
        """A pandas DataFrame of the list of records (or dict of columns) under `key` ('summary':
        the report's scalar figures as one row)."""
        if key == "summary":
            return Result.frame(self, "summary")
        if key not in self.data:
            raise ValueError(f"table '{key}': use {', '.join(self.tables)}")
        value = self.data[key]
        if isinstance(value, list) and value and isinstance(value[0], dict):
            import pandas

            return pandas.DataFrame.from_records(value)
        return _frame(value)

    def __repr__(self):
        return f"<rica.CommandResult rica {self.command} {' '.join(self.args)}: status {self.status}, " \
               f"keys {', '.join(list(self.data)[:8])}>"

    def _repr_html_(self):
        return _html_table(f"rica {self.command} {' '.join(self.args)}",
                           [("status", self.status)] + [(k, v) for k, v in self.data.items()
                                                        if not isinstance(v, (dict, list))])


def _command(command, positional, options, has_out=False):
    """`rica COMMAND positional --options` in this process, its JSON report as the result. With
    has_out and no out=, the files go to a temporary directory, removed afterwards."""
    _no_quiet(options)
    options = dict(options)
    if options.get("json") not in (None, False):
        raise RicaError("json: the result is the JSON report (write it with json.dump)")
    tmp = _tempfile.mkdtemp(prefix=f"rica-{command}-")
    try:
        out = options.get("out")
        if has_out and out is None:
            options["out"] = _os.path.join(tmp, "out")
            if "no_plot" not in options:
                options["no_plot"] = True
        path = _os.path.join(tmp, "report.json")
        words = _argv(positional, options)
        status = _rica.command([command] + words + ["--json", path, "--quiet"])
        with open(path, encoding="utf-8") as f:
            data = _json.load(f)
        return CommandResult(command, words, status, data, out)
    finally:
        _shutil.rmtree(tmp, ignore_errors=True)


def _request(command, positional, options, has_out=False):
    """`rica COMMAND positional --options` as the library's typed request (rica/request/), its JSON
    report (`--json`) as the result. With has_out and no out=, the files go to a temporary
    directory, removed afterwards (and no figures unless no_plot=False)."""
    _no_quiet(options)
    if options.get("json") not in (None, False):
        raise RicaError("json: the result is the JSON report (write it with json.dump)")
    out = options.get("out")
    if not has_out or out is not None:
        words = _argv(positional, options)
        return CommandResult(command, words, 0, getattr(_rica, command)(words), out)
    tmp = _tempfile.mkdtemp(prefix=f"rica-{command}-")
    try:
        words = _argv(positional, dict({"no_plot": True}, **options, out=_os.path.join(tmp, "out")))
        return CommandResult(command, words, 0, getattr(_rica, command)(words), None)
    finally:
        _shutil.rmtree(tmp, ignore_errors=True)


def replay(archive, topology, *, eager_bytes=None, packet_bytes=None, compute_scale=None, map=None,
           collectives=None, **options):
    """`rica replay ARCHIVE TOPOLOGY`: a recorded MPI program (an OTF2 archive, `rica record`)
    replayed closed-loop on the emulated network (docs/replay.md). The replay's options as keywords
    (eager_bytes, packet_bytes, compute_scale, map: "identity", "random", "embed" or a file,
    collectives: "allreduce=ring,..."), every other keyword as rica.run's. Returns a Result whose
    `replay` holds the JSON's "replay" object (ranks, messages, makespan, per rank, critical path,
    latency distribution); `status` 3 when the replay deadlocked."""
    for name, value in (("archive", str(archive)), ("map", map)):
        if value is not None and any(c in str(value) for c in ",=()"):
            raise RicaError(f"{name}: {value!r}: a path with ',', '=' or parentheses cannot be passed to the "
                            "application; rename it")
    spec = "replay:trace=" + str(archive)
    for key, value in (("eager_bytes", eager_bytes), ("packet_bytes", packet_bytes),
                       ("compute_scale", compute_scale), ("map", map)):
        if value is not None:
            spec += f",{key}={value}"
    if collectives is not None:
        spec += f",collectives=({collectives})"
    if "app" in options or "traffic" in options:
        raise RicaError("replay: app= and traffic= are rica.run's; the workload is the archive")
    return run(topology, app=spec, **options)


def run(topology, *, trace=False, **options):
    """`rica run TOPOLOGY` with the CLI's options as keywords (listed below). trace=True returns the
    per-packet table as `trace` (the columns of the CLI's --trace CSV); trace="FILE" returns it too
    and keeps the CSV in FILE, as `rica run --trace FILE` writes it (the CLI's '-', standard output,
    is refused: the table is the result).
    telemetry=W (cycles, or microseconds on the async engine; True: the default window, 1000 cycles or
    on the async engine 5000 us per 1,024 nodes, at least 5000: each window stops the world for a read
    that grows with the machine) records
    the run over time:
    `telemetry` maps windows and classes (and links, with telemetry_links=True) to column dicts of
    NumPy arrays (the CSVs of `rica run --telemetry W`, written too when csv= or json= names a
    file). The result keeps `spec` as
    given."""
    _no_quiet(options)
    if options.get("telemetry") is True:  # the default window: 1000 cycles, or on the async engine by the machine's size
        options = dict(options, telemetry=_rica.TELEMETRY_WINDOW if options.get("engine", "async") == "cycle"
                       else _rica.telemetry_window_async_us(_rica.describe(topology)["nodes"]))
    if trace == "-":
        raise RicaError("trace: '-' (standard output) is the CLI's; give trace=True for the table or "
                        "trace=\"FILE\" to keep the CSV as well")
    if trace is True:
        fd, path = _tempfile.mkstemp(prefix="rica-trace-", suffix=".csv")
        _os.close(fd)
        try:
            return RunResult(_rica.run(_argv([topology], dict(options, trace=path))), topology)
        finally:
            _os.unlink(path)
    if trace:
        options = dict(options, trace=trace)
    return RunResult(_rica.run(_argv([topology], options)), topology)


def sweep(topologies, **options):
    """`rica sweep TOPOLOGY...` on the cycle engine (keywords below); `rates` is "FROM:TO:STEP", a comma list, a Python
    list or "auto" (placed by the channel-load bound, refined near the knee). With seeds=K, `means`
    holds each point's means and 95% intervals. out="DIR" also writes the CLI's files there
    (sweep.csv, sweep_mean.csv, sweep_summary.csv; plots unless no_plot=True)."""
    if isinstance(topologies, str):
        topologies = [topologies]
    _no_quiet(options)
    return SweepResult(_rica.sweep(_argv(topologies, options)), list(topologies))


def os(topology, **options):  # noqa: A001  (rica.os is the time-sharing command, not the os module)
    """`rica os TOPOLOGY`: time sharing of a partition, drain vs flush (parts, job, policy, rate,
    slices, packets, ...: `rica os --help`). A CommandResult of the os JSON report; out="DIR"
    keeps os.csv, switches.csv and the plots."""
    return _command("os", [topology], options, has_out=True)


def partition(topology, **options):
    """`rica partition TOPOLOGY` (parts, rule, ...: `rica partition --help`): every partition's
    PEs, closed flag and offending hops, as a CommandResult."""
    return _request("partition", [topology], options)


def embed(guest, host, **options):
    """`rica embed GUEST HOST` (map, oriented, faults, seed: `rica embed --help`): dilation,
    congestion and load of the guest graph (ring, array, tree, double-tree, shuffle-exchange, mesh,
    torus) on the host topology, intact or with faults=."""
    return _request("embed", [guest, host], options)


def experiment(name, **options):
    """`rica experiment NAME` (`rica experiment --list`: mdce-1024, rwc1, saturation, partition16, modern,
    faults, ...; `rica experiment --help`) as the library's typed request (rica/request/experiment.hpp),
    with the CLI's checks: the report (table, set-up and configuration); out="DIR" keeps the CSVs and
    figures (no_plot=True: no figures)."""
    return _request("experiment", [name], options, has_out=True)


def bound(topologies, **options):
    """`rica bound TOPOLOGY...` (traffic, ...: `rica bound --help`): channel load and saturation
    bound."""
    if isinstance(topologies, str):
        topologies = [topologies]
    return _request("bound", list(topologies), options)


def topo(topology, **options):
    """`rica topo TOPOLOGY --json` (samples, seed, all_pairs, ...): the measures as the result's
    summary (r["diameter"], r.summary)."""
    _no_quiet(options)
    words = _argv([topology], options)
    return CommandResult("topo", words, 0, _rica.topo(words), None)


def route(topology, src, dst, **options):
    """`rica route TOPOLOGY SRC DST --json` (routing=...): the path as a dict; src and dst are PE
    numbers or labels such as "(0,0,0)": r["hops"], r.frame("path") where the report lists it."""
    _no_quiet(options)
    words = _argv([topology, src, dst], options)
    return CommandResult("route", words, 0, _rica.route(words), None)


def os_stream(topology, jobs, **options):
    """`rica os-stream TOPOLOGY --jobs JOBS` (keywords below; job takes one spec or a weighted mix
    "SPEC@W;SPEC@W", job_map "N=SPEC;..." for SWF executable numbers): the JSON `--json` writes, a dict with one entry per run in "runs" (each with its
    measures and a "jobs" list) as the result's summary (r["runs"], r.frame("runs")). `alloc`, `sched`
    and `policy` take a name or a list of names."""
    words = _argv([topology], dict(options, jobs=jobs))
    return CommandResult("os-stream", words, 0, _rica.os_stream(words), None)


def options(command):
    """The options of `rica COMMAND` ("run", "app sort", ...) as the Python functions take them: a
    list of dicts with keyword (snake_case), option ("--buffer-words", or a positional's name),
    positional, flag, type, default, help, configuration (recorded in the report), engines ("every
    engine" or e.g. "the cycle engine only") and table (declared in the CLI's option table). The
    docstrings of run, sweep, ... are generated from it."""
    return _rica.options(command)


_NOT_KEYWORDS = {"quiet", "progress", "help"}  # Python calls never print
# Keywords whose Python meaning adds to the CLI option's: (command, keyword) -> (kind, help).
_PYTHON_KEYWORDS = {
    ("run", "trace"): ("True|FILE", "the per-delivered-packet table as the result's `trace` (src, dst, seq, inject, "
                                    "deliver, hops, enter, words); a FILE also keeps it as the CLI's --trace CSV"),
}


def _keyword_doc(command):
    """The keyword list of `rica COMMAND` for a docstring."""
    lines = []
    for o in options(command):
        if o["positional"] or o["keyword"] in _NOT_KEYWORDS:
            continue
        kind = "True" if o["flag"] else o["type"] or "VALUE"
        facts = [f"default {o['default']}"] if o["default"] else []
        if o["engines"] != "every engine":
            facts.append(o["engines"])
        extra = f" ({'; '.join(facts)})" if facts else ""
        kind, text = _PYTHON_KEYWORDS.get((command, o["keyword"]), (kind, o["help"]))
        lines.append(f"    {o['keyword']}={kind}{extra}: {text}")
    return f"\n\n    Keywords (`rica {command} --help`):\n" + "\n".join(lines) + "\n"


_RETURNS = {
    "run": "rica.RunResult (a rica.Result): summary = the run's JSON; tables summary, pe, link, trace, windows, "
           "telemetry_classes, telemetry_links (those recorded)",
    "sweep": "rica.SweepResult (a rica.Result): summary = {points, means}; tables points, means (one series per "
             "topology and routing)",
}


def _document(function, command):
    returns = _RETURNS.get(command, f"rica.CommandResult (a rica.Result): summary = the JSON `rica {command} --json` "
                                    "writes; tables summary and each list of records in it (r.tables)")
    function.__doc__ = ((function.__doc__ or "").rstrip() + f"\n\n    Returns {returns}. Nothing is printed." +
                        _keyword_doc(command))


class Topology:
    """A topology spec, checked at construction: spec (as given), canonical, pes, nodes, ports,
    buffer_classes, direct, vertex_transitive; measures() (the ten measures and the routed
    figures, `rica topo --json`), route(src, dst) (`rica route --json`), label(node)."""

    def __init__(self, spec):
        d = _rica.describe(spec)
        self.spec = spec
        self.canonical = d["spec"]
        self.pes = d["pes"]
        self.nodes = d["nodes"]
        self.ports = d["ports"]
        self.buffer_classes = d["buffer_classes"]
        self.direct = d["direct"]
        self.vertex_transitive = d["vertex_transitive"]

    def measures(self, **options):
        """samples=, seed=, all_pairs=True as in `rica topo`."""
        return topo(self.spec, **options)

    def route(self, src, dst, **options):
        """The self-routed path: src and dst are PE numbers or labels such as "(0,0,0)"."""
        return route(self.spec, src, dst, **options)

    def label(self, node):
        return _rica.label(self.spec, node)

    def __repr__(self):
        return f"<rica.Topology {self.spec} ({self.canonical}): {self.pes} PEs, {self.nodes} nodes>"

    def _repr_html_(self):
        return _html_table(f"rica topology {self.spec}",
                           [("canonical", self.canonical), ("PEs", self.pes), ("nodes", self.nodes),
                            ("ports", self.ports), ("buffer classes", self.buffer_classes)])


def load_extension(path):
    """Loads a user's shared library of registered applications, traffic patterns, switch policies,
    allocators, schedulers and topology families (docs/extending.md, "Python") into this process: its
    static registrations run against this module's registries, so rica.names() lists the new names
    and rica.run(..., app=/traffic=), rica.os(policy=), rica.os_stream(alloc=, sched=) and topology
    specs take them. Build it with rica's headers and without linking rica's libraries (their symbols
    come from this module): g++ -std=c++20 -shared -fPIC -I<rica>/include ext.cpp -o ext.so.
    Returns a Result whose summary is {"path": ..., "added": {kind: [new names]}}. A missing file,
    a library that cannot be loaded (its message), or one loaded twice raise RicaError."""
    import ctypes

    full = _os.path.abspath(str(path))
    if not _os.path.isfile(full):
        raise RicaError(f"load_extension: '{path}' is not a file; give the shared library (.so) to load")
    if full in _EXTENSIONS:
        raise RicaError(f"load_extension: '{path}' is loaded already (its registrations ran once)")
    before = names()
    # This module's symbols (rica's registries) made global, so the library's references resolve to them.
    ctypes.CDLL(_rica.__file__, mode=_os.RTLD_GLOBAL | getattr(_os, "RTLD_NOLOAD", 0))
    try:
        _EXTENSIONS[full] = ctypes.CDLL(full, mode=_os.RTLD_GLOBAL | _os.RTLD_NOW)
    except OSError as e:
        raise RicaError(f"load_extension: cannot load '{path}': {e}") from None
    after = names()
    added = {k: sorted(set(after[k]) - set(before.get(k, []))) for k in after}
    return CommandResult("load_extension", [full], 0, {"path": full, "added": added}, None)


_EXTENSIONS = {}  # path -> the loaded library (kept: unloading would leave dangling registrations)


def names():
    """Registered names: {'topologies': [...], 'traffic': [...], 'apps': [...], 'policies': [...]}."""
    return _rica.names()


def list_text():
    """What `rica list` prints (topologies, traffic patterns, applications)."""
    return _rica.list_text()


for _function, _command_name in ((run, "run"), (sweep, "sweep"), (os, "os"), (partition, "partition"),
                                 (embed, "embed"), (experiment, "experiment"), (bound, "bound"), (topo, "topo"),
                                 (route, "route"), (os_stream, "os-stream")):
    _document(_function, _command_name)
del _function, _command_name
