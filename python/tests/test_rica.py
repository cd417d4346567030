"""The Python module against the CLI: same inputs accepted and refused, same figures."""
import csv
import json
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import rica
import sys

RICA = os.environ.get("RICA_BINARY", os.path.join(os.path.dirname(__file__), "../../build/rica"))
# Wall-clock and memory figures differ between any two runs; everything else must not.
NONDETERMINISTIC = {"wall_s", "packets_per_s", "packet_hops_per_s", "packet_transfers_per_s", "peak_rss_kb", "bytes_per_pe"}
# Provenance that names the invocation (file paths, command line, start time), not the run.
INVOCATION = {"config", "command_line", "start_time", "outputs"}


def cli(*args):
    return subprocess.run([RICA, *args], capture_output=True, text=True)


def cli_error(*args):
    """The CLI's one-line message without its 'rica: error: ' prefix (and exit status 2)."""
    p = cli(*args)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rica: error: "), p.stderr
    return lines[0][len("rica: error: "):]


def test_topology_describe_measures_route():
    t = rica.Topology("torus:4x4")
    assert (t.pes, t.nodes, t.ports) == (16, 16, 4)
    m = t.measures()
    assert m["diameter"] == 4 and m["links"] == 32
    c = json.loads(cli("topo", "torus:4x4", "--json", "-", "--quiet").stdout)
    assert {k: v for k, v in m.items() if k != "seconds"} == {k: c[k] for k in m if k != "seconds"}
    r = t.route(0, 5)
    assert r["hops"] == 2 and len(r["path"]) == 2 and r["src"] == t.label(0)
    c = json.loads(cli("route", "torus:4x4", "0", "5", "--json", "-", "--quiet").stdout)
    assert r == {k: c[k] for k in r}
    ind = rica.Topology("omega:4")
    assert ind.nodes > ind.pes and not ind.direct


@pytest.mark.parametrize("call, argv", [
    (lambda: rica.Topology("nosuch:3"), ["topo", "nosuch:3"]),
    (lambda: rica.run("torus:4x4", rate=2), ["run", "torus:4x4", "--rate", "2"]),
    (lambda: rica.run("torus:4x4", engine="warp"), ["run", "torus:4x4", "--engine", "warp"]),
    (lambda: rica.run("torus:4x4", threads=-1), ["run", "torus:4x4", "--threads", "-1"]),
    (lambda: rica.run("torus:4x4", traffic="nosuch"), ["run", "torus:4x4", "--traffic", "nosuch"]),
    (lambda: rica.run("torus:4x4", app="reduce:rounds=0"), ["run", "torus:4x4", "--app", "reduce:rounds=0"]),
    (lambda: rica.run("torus:4x4", cycles=10), ["run", "torus:4x4", "--cycles", "10"]),
    (lambda: rica.run("torus:4x4", buffer_words=0), ["run", "torus:4x4", "--buffer-words", "0"]),
    (lambda: rica.run("torus:4x4", packet_words="4:4"), ["run", "torus:4x4", "--packet-words", "4:4"]),
    (lambda: rica.run("torus:4x4", bogus=1), ["run", "torus:4x4", "--bogus", "1"]),
    (lambda: rica.sweep(["torus:4x4"], rates="0.5:0.1:0.1"), ["sweep", "torus:4x4", "--rates", "0.5:0.1:0.1"]),
    (lambda: rica.Topology("torus:4x4").route(0, 99), ["route", "torus:4x4", "0", "99"]),
])
def test_bad_input_raises_the_cli_message(call, argv):
    with pytest.raises(rica.RicaError) as e:
        call()
    assert isinstance(e.value, ValueError)
    assert str(e.value) == cli_error(*argv)


def test_cycle_engine_identical_to_cli(tmp_path):
    opts = ["--engine", "cycle", "--rate", "0.07", "--cycles", "400", "--warmup", "100", "--seed", "11",
            "--link-cycles", "degree", "--buffer-words", "8", "--packet-words", "4:2", "--threads", "2",
            "--traffic", "hotspot:0.1"]
    a = tmp_path / "cli"
    p = cli("run", "cccb:n=2", *opts, "--quiet", "--json", f"{a}.json", "--csv", f"{a}.csv", "--trace", f"{a}.trace")
    assert p.returncode == 0, p.stderr
    b = tmp_path / "py"
    r = rica.run("cccb:n=2", engine="cycle", rate=0.07, cycles=400, warmup=100, seed=11, link_cycles="degree",
                 buffer_words=8, packet_words="4:2", threads=2, traffic="hotspot:0.1",
                 json=f"{b}.json", csv=f"{b}.csv", trace=f"{b}.trace")
    for ext in (".csv", ".links.csv", ".trace"):
        assert (tmp_path / f"py{ext}").read_bytes() == (tmp_path / f"cli{ext}").read_bytes(), ext
    cj, pj = json.loads((tmp_path / "cli.json").read_text()), json.loads((tmp_path / "py.json").read_text())
    strip = lambda j: {k: v for k, v in j.items() if k not in NONDETERMINISTIC | INVOCATION}  # noqa: E731
    assert strip(cj) == strip(pj) == strip(r.summary)
    assert r.status == 0 and r.delivered == cj["delivered"] > 0
    # The tables are the CSV files' columns.
    with open(tmp_path / "cli.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(r.pes["label"]) == [row["label"] for row in rows]
    for col in ["pe", "injected", "delivered", "forwarded", "blocked"]:
        assert np.array_equal(r.pes[col], np.array([int(row[col]) for row in rows], dtype=np.uint64)), col
    links = np.loadtxt(tmp_path / "cli.links.csv", delimiter=",", skiprows=1, dtype=np.uint64)
    assert np.array_equal(r.links["packets"], links[:, 3]) and np.array_equal(r.links["peer"], links[:, 2])
    trace = np.loadtxt(tmp_path / "cli.trace", delimiter=",", skiprows=1, dtype=np.uint64)
    assert len(r.trace["deliver"]) == len(trace) and np.array_equal(r.trace["deliver"], trace[:, 4])


def test_async_engine_and_tables():
    r = rica.run("hypercube:5", traffic="uniform", packets=30, threads=2, seed=3, trace=True)
    s = r.summary
    assert s["model"]["engine"] == "async" and s["conservation_ok"] and s["injected"] == s["delivered"] == 32 * 30
    assert int(r.pes["delivered"].sum()) == s["delivered"] and int(r.pes["injected"].sum()) == s["injected"]
    assert int(r.links["packets"].sum()) == s["packet_hops"]
    assert len(r.trace["src"]) == s["delivered"] and (r.trace["deliver"] >= r.trace["inject"]).all()
    assert r.hop_histogram.sum() == s["delivered"]


def test_app_by_name_and_no_classes_deadlock():
    r = rica.run("torus:4x4", app="reduce:rounds=3", engine="cycle")
    assert r.status == 0 and r.summary["verified"] and r.summary["app"]["rounds"] == 3
    d = rica.run("torus:16", traffic="tornado", no_classes=True, buffer_words=3, packet_words="3:0", packets=50)
    assert d.status == 3 and d.summary["deadlock"]


def test_sweep_matches_cli(tmp_path):
    s = rica.sweep(["torus:4x4", "mesh:4x4"], rates=[0.05, 0.2], cycles=300, seed=5)
    assert len(s) == 4 and list(s["topology"]) == ["torus:4x4", "torus:4x4", "mesh:4x4", "mesh:4x4"]
    p = cli("sweep", "torus:4x4", "mesh:4x4", "--rates", "0.05,0.2", "--cycles", "300", "--seed", "5",
            "--out", str(tmp_path), "--no-plot")
    assert p.returncode == 0, p.stderr
    with open(tmp_path / "sweep.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 4
    for i, f in enumerate(rows):
        assert f["topology"] == s["topology"][i] and f"{s['accepted'][i]:.6g}" == f["accepted"]
        assert int(f["delivered"]) == s["delivered"][i] and f"{s['latency_mean'][i]:.4f}" == f["latency_mean"]


def test_gil_released_while_running():
    done = []
    t = threading.Thread(target=lambda: done.append(rica.run("torus:16x16", engine="cycle", rate=0.05,
                                                            cycles=1500, threads=1)))
    t.start()
    ticks = 0
    start = time.monotonic()
    while t.is_alive():
        ticks += 1
        time.sleep(0.001)
    t.join()
    assert done and done[0].status == 0
    if time.monotonic() - start > 0.2:  # the run was long enough to tell
        assert ticks > 20


def test_names_and_frames():
    n = rica.names()
    assert "torus" in n["topologies"] and "uniform" in n["traffic"] and "reduce" in n["apps"]
    assert "drain" in n["policies"] and "uniform" in rica.list_text()
    pd = pytest.importorskip("pandas")
    r = rica.run("mesh:4x4", engine="cycle", rate=0.1, cycles=200, trace=True)
    assert isinstance(r.frame(), pd.DataFrame) and r.frame().loc[0, "delivered"] == r.delivered
    assert list(r.frame("pe").columns) == ["pe", "label", "injected", "delivered", "forwarded", "blocked"]
    assert len(r.frame("trace")) == r.delivered and len(r.frame("link")) == len(r.links["node"])
    with pytest.raises(ValueError):
        r.frame("nosuch")


def test_telemetry_tables_match_the_cli(tmp_path):
    r = rica.run("torus:4x4", engine="cycle", rate=0.2, cycles=1500, threads=2, telemetry=250, telemetry_links=True)
    w = r.telemetry["windows"]
    assert int(w["delivered"].sum()) == r.delivered and int(w["injected"].sum()) == r.injected
    assert int(w["packet_hops"].sum()) == r.packet_hops and w["end"][-1] == r.cycles_run
    links = r.telemetry["links"]
    per_link = {}
    for n, p, k in zip(links["node"], links["port"], links["packets"]):
        per_link[(n, p)] = per_link.get((n, p), 0) + int(k)
    assert per_link == {(n, p): int(k) for n, p, k in zip(r.links["node"], r.links["port"], r.links["packets"])}
    assert r.summary["telemetry"]["window"] == 250 and r.summary["telemetry"]["windows"] == len(w["end"])
    d = rica.run("torus:4x4", engine="cycle", rate=0.2, cycles=1500, telemetry=True)
    assert d.summary["telemetry"]["window"] == 1000
    assert "links" not in d.telemetry and not d.summary["telemetry"]["links"]  # only when asked
    assert rica.run("torus:4x4", rate=0.2, packets=50, threads=2, telemetry=True).summary["telemetry"]["window"] == 5000
    # The async default grows with the machine (5 ms per 1,024 nodes): 4,096 nodes, 20 ms.
    assert rica._rica.telemetry_window_async_us(4096) == 20000 and rica._rica.telemetry_window_async_us(16) == 5000
    assert rica.run("torus:64x64", rate=0.01, packets=2, threads=2, telemetry=True).summary["telemetry"]["window"] == 20000
    # The CLI's CSV beside --csv holds the same rows.
    p = cli("run", "torus:4x4", "--engine", "cycle", "--rate", "0.2", "--cycles", "1500", "--quiet",
            "--telemetry", "250", "--csv", str(tmp_path / "r.csv"))
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(open(tmp_path / "r.telemetry_windows.csv")))
    assert [int(x["delivered"]) for x in rows] == [int(x) for x in w["delivered"]]
    # The async engine: windows of W microseconds (the world stopped at each end), at least 100.
    with pytest.raises(rica.RicaError, match="async engine"):
        rica.run("torus:4x4", telemetry=10)
    a = rica.run("torus:4x4", rate=0.2, packets=200, threads=2, telemetry=100)
    assert a.summary["telemetry"]["time_unit"] == "ns"
    assert int(sum(a.telemetry["windows"]["delivered"])) == a.summary["delivered"]
    pd = pytest.importorskip("pandas")
    assert list(r.frame("windows")["delivered"]) == list(w["delivered"])
    assert len(r.frame("telemetry_links")) == len(links["node"])


def test_example_script_plots(tmp_path):
    pytest.importorskip("matplotlib")
    script = os.path.join(os.path.dirname(__file__), "../../examples/python/sweep_two.py")
    out = tmp_path / "s.png"
    p = subprocess.run([sys.executable, script, "--out", str(out), "--cycles", "300"],
                       capture_output=True, text=True, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    assert out.stat().st_size > 1000 and "torus:8x8" in p.stdout and "hypercube:n=6" in p.stdout


def test_trace_events_as_a_keyword(tmp_path):
    # --trace-events through Python: the same file and summary as the CLI's, every hop followed.
    path = tmp_path / "t.json"
    r = rica.run("torus:4x4", engine="cycle", rate=0.1, cycles=800, trace_events=str(path),
                 trace_events_packets=1000000)
    te = r.summary["trace_events"]
    assert te["gaps"] == 0 and te["hops"] == r.packet_hops and te["packets"] == te["delivered"] > 0
    events = json.load(open(path))["traceEvents"]
    assert sum(1 for e in events if e["ph"] == "f") == te["delivered"]
    with pytest.raises(rica.RicaError, match="--trace-events"):
        rica.run("torus:4x4", trace_events=str(path))  # the async engine: refused


def test_os_stream_equals_cli_and_refuses_the_same(tmp_path):
    """rica.os_stream: the CLI's JSON runs, the CLI's one-line refusals."""
    swf = os.path.join(os.path.dirname(__file__), "../../examples/os_stream/small.swf")
    opts = dict(alloc=["buddy", "first-fit"], sched=["easy", "gang"], policy="drain", cycles_per_second=2, rate=0.2,
                slice=100, threads=1)
    r = rica.os_stream("torus:8x8", swf, **opts)
    assert len(r["runs"]) == 4 and all(run["ok"] and run["lost"] == 0 for run in r["runs"])
    out = tmp_path / "s.json"
    p = cli("os-stream", "torus:8x8", "--jobs", swf, "--alloc", "buddy,first-fit", "--sched", "easy,gang",
            "--policy", "drain", "--cycles-per-second", "2", "--rate", "0.2", "--slice", "100", "--threads", "1",
            "--json", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    assert json.load(open(out))["runs"] == r["runs"]
    p = cli("os-stream", "torus:8x8", "--jobs", swf, "--alloc", "budy")
    with pytest.raises(rica.RicaError) as e:
        rica.os_stream("torus:8x8", swf, alloc="budy")
    assert p.stderr.strip() == "rica: error: " + str(e.value)


def test_os_stream_mixes_applications():
    """rica.os_stream: job=... a weighted mix, job_map=... SWF executables; the CLI's refusals."""
    swf = os.path.join(os.path.dirname(__file__), "../../examples/os_stream/small.swf")
    r = rica.os_stream("torus:8x8", swf, job_map="1=sort;2=stencil;3=reduce", cycles_per_second=2, threads=1)
    assert r["runs"][0]["ok"] and {j["app"] for j in r["runs"][0]["jobs"]} == {"sort", "stencil", "reduce"}
    r = rica.os_stream("torus:8x8", "poisson:jobs=12,rate=1,size=2:8,length=2", job="reduce@1;uniform@1",
                       cycles_per_second=10, threads=1)
    assert r["runs"][0]["ok"] and {j["app"] for j in r["runs"][0]["jobs"]} == {"reduce", "uniform"}
    with pytest.raises(rica.RicaError, match="did you mean 'sort'"):
        rica.os_stream("torus:8x8", swf, job="sortt@1;uniform")


# ---- Issue 45: one result shape, help() says what comes back, nothing printed, user extensions ----

SRC = os.path.join(os.path.dirname(__file__), "../..")


def test_every_function_returns_one_result_shape(tmp_path, capfd):
    """Every command function returns a rica.Result: its JSON as .summary (a dict), its tables as
    .frame(name) for each name in .tables, the summary by key too; and prints nothing."""
    pd = pytest.importorskip("pandas")
    calls = {
        "run": lambda: rica.run("torus:4x4", engine="cycle", rate=0.1, cycles=300, threads=1),
        "sweep": lambda: rica.sweep("torus:4x4", rates="0.1,0.2", cycles=300),
        "os": lambda: rica.os("torus:4x4", parts=2, packets=5, slice="50", rate="0.2", threads=1),
        "partition": lambda: rica.partition("cccb:n=2", parts=2),
        "embed": lambda: rica.embed("ring", "torus:4x4"),
        "bound": lambda: rica.bound("torus:4x4"),
        "topo": lambda: rica.topo("torus:4x4"),
        "route": lambda: rica.route("torus:4x4", 0, 5),
    }
    for name, call in calls.items():
        r = call()
        assert isinstance(r, rica.Result), (name, type(r))
        assert isinstance(r.summary, dict) and r.summary, name
        assert r.tables and all(isinstance(t, str) for t in r.tables), name
        for t in r.tables:
            assert isinstance(r.frame(t), pd.DataFrame), (name, t)
        with pytest.raises(ValueError):
            r.frame("no-such-table")
        k = next(iter(r.summary)) if name != "sweep" else "topology"
        assert k in r and r[k] is not None, name
        assert r.command, name
    # the old field names keep working
    assert rica.topo("torus:4x4")["diameter"] == 4
    assert isinstance(rica.run("torus:4x4", engine="cycle", rate=0.1, cycles=300).pes["delivered"], np.ndarray)
    out, err = capfd.readouterr()
    assert out == "" and err == "", (out, err)  # nothing printed unless asked (rica.os printed before)


def test_help_says_what_comes_back():
    for f in (rica.run, rica.sweep, rica.os, rica.os_stream, rica.partition, rica.embed, rica.experiment, rica.bound,
              rica.topo, rica.route):
        assert "Returns rica." in f.__doc__ and "Result" in f.__doc__, f.__name__
    assert "Returns a Result" in rica.load_extension.__doc__


EXTENSION = r'''
#include <rica/user_topology.hpp>
#include <string>

static rica::Topology make_pyring(const rica::SpecArgs& a) {
  const unsigned n = a.uint("n");
  if (n < 3 || n > 4096) throw rica::usage_error("topology 'pyring': n must be in 3..4096");
  rica::EdgeList g;
  g.nodes = g.pes = n;
  for (rica::node_t v = 0; v < n; ++v) {
    g.arcs.emplace_back(v, (v + 1) % n);
    g.arcs.emplace_back(v, (v + n - 1) % n);
  }
  return rica::GraphTopology(g, "pyring:n=" + std::to_string(n));
}
static const rica::TopologyRegistration pyring{
    {"pyring", "bidirectional ring of n PEs (a Python extension)", "pyring:8", {{"n", "3..4096", "", "PEs"}}, "n",
     make_pyring}};
'''


def test_load_extension(tmp_path):
    """A user's shared library of registrations (docs/extending.md, "Python"), built with rica's
    headers and without its libraries, loads into the module: its family is listed, runs, and is
    refused when loaded twice; a missing or broken library raises RicaError."""
    cxx = os.environ.get("CXX", "g++")
    src = tmp_path / "pyring.cpp"
    src.write_text(EXTENSION)
    lib = tmp_path / "libpyring.so"
    build = os.path.join(os.path.dirname(rica.__file__), "..", "..")  # build/python/rica -> build
    cmd = [cxx, "-std=c++20", "-O1", "-shared", "-fPIC", "-I", os.path.join(SRC, "include"),
           "-I", os.path.join(build, "generated", "include"), str(src), "-o", str(lib)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "pyring" not in rica.names()["topologies"]
    r = rica.load_extension(str(lib))
    assert isinstance(r, rica.Result) and r.summary["added"]["topologies"] == ["pyring"], r.summary
    assert "pyring" in rica.names()["topologies"]
    run = rica.run("pyring:8", engine="cycle", rate=0.1, cycles=300, threads=1)
    assert run.summary["delivered"] == run.summary["injected"] > 0
    assert rica.topo("pyring:8")["diameter"] == 4
    with pytest.raises(rica.RicaError, match="loaded already"):
        rica.load_extension(str(lib))
    with pytest.raises(rica.RicaError, match="not a file"):
        rica.load_extension(str(tmp_path / "missing.so"))
    bad = tmp_path / "bad.so"
    bad.write_text("not a library")
    with pytest.raises(rica.RicaError, match="cannot load"):
        rica.load_extension(str(bad))


def test_sweep_routings_are_series_not_seeds():
    """routing="a,b": one series per routing; the means never mix routings (one rate, two seeds)."""
    s = rica.sweep("dragonfly:h=2,p=2,a=4", routing="deterministic,valiant", rates="0.2", seeds=2, cycles=400,
                   link_cycles=1)
    assert list(s["routing"]) == ["deterministic"] * 2 + ["valiant"] * 2
    assert list(s.means["routing"]) == ["deterministic", "valiant"] and list(s.means["seeds"]) == [2, 2]
    assert {p["routing"] for p in s.summary["points"]} == {"deterministic", "valiant"}


def test_replay_of_a_recorded_mpi_program():
    # examples/mpi/traces/stencil16: halo_stencil on 16 ranks, 20 iterations, an allreduce every 5,
    # recorded by `rica record` (docs/replay.md).
    trace = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "mpi", "traces", "stencil16")
    r = rica.replay(trace, "torus:4x4", engine="cycle", threads=1, compute_scale=0)
    assert r.status == 0
    assert r.replay["ranks"] == 16
    assert r.replay["p2p_messages"] == 16 * 4 * 20
    assert r.replay["collective_calls"]["allreduce"] == 16 * 4
    assert r.replay["deadlock"] is None
    again = rica.replay(trace, "torus:4x4", engine="cycle", threads=2, compute_scale=0)
    assert again.replay["makespan"] == r.replay["makespan"]
    with pytest.raises(rica.RicaError, match="eager_bytes"):
        rica.replay(trace, "torus:4x4", eager_bytes=-1)
    with pytest.raises(rica.RicaError, match="16 ranks"):
        rica.replay(trace, "torus:2x2")
