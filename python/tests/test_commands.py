"""Issue 27: a Python function per subcommand with the CLI's options and checks; spec strings kept;
sweep means with 95% intervals; a clean namespace; Ctrl-C; version; notebook views; the
interpreter the module was built for."""
import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import rica

RICA = os.environ.get("RICA_BINARY", os.path.join(os.path.dirname(__file__), "../../build/rica"))
# Provenance that names the invocation or the host's moment, not the result.
VOLATILE = {"command_line", "start_time", "seconds", "wall_s", "rica_version", "threads"}


def cli(*args):
    return subprocess.run([RICA, *args], capture_output=True, text=True)


def cli_json(tmp_path, *args):
    path = tmp_path / "cli.json"
    p = cli(*args, "--quiet", "--json", str(path))
    assert p.returncode == 0, p.stderr
    return json.loads(path.read_text())


def cli_error(*args):
    p = cli(*args)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rica: error: "), p.stderr
    return lines[0][len("rica: error: "):]


def strip(j):
    """A JSON report without what names the invocation or the host's moment, at any depth."""
    if isinstance(j, dict):
        return {k: strip(v) for k, v in j.items() if k not in VOLATILE}
    if isinstance(j, list):
        return [strip(v) for v in j]
    return j


def same(a, b):
    return strip(a) == strip(b)


# ---- a function per subcommand, the same report as the CLI ------------------------------------------
@pytest.mark.parametrize("call, argv", [
    (lambda: rica.os("torus:4x4", parts=2, packets=5, slice="50", rate="0.2", seed=3, threads=1),
     ["os", "torus:4x4", "--parts", "2", "--packets", "5", "--slice", "50", "--rate", "0.2", "--seed", "3",
      "--threads", "1", "--no-plot", "--out", "OUT"]),
    (lambda: rica.partition("cccb:n=2", parts=4), ["partition", "cccb:n=2", "--parts", "4"]),
    (lambda: rica.embed("tree", "ubruijn:6"), ["embed", "tree", "ubruijn:6"]),
    (lambda: rica.bound(["torus:4x4", "mesh:4x4"], traffic="transpose"),
     ["bound", "torus:4x4", "mesh:4x4", "--traffic", "transpose"]),
    (lambda: rica.experiment("mdce-delta", quick=True, cycles=300, seeds=1, threads=1),
     ["experiment", "mdce-delta", "--quick", "--cycles", "300", "--seeds", "1", "--threads", "1", "--no-plot",
      "--out", "OUT"]),
])
def test_command_functions_report_as_the_cli(tmp_path, call, argv):
    r = call()
    assert isinstance(r, rica.CommandResult) and r.status == 0
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    c = cli_json(tmp_path, *argv)
    assert set(r.keys()) == set(c.keys())
    if argv[0] not in ("os", "experiment"):  # os and experiment: their figures include wall times
        assert same(r.data, c)
    assert {k: v for k, v in r["config"].items() if k not in ("out", "threads")} == \
           {k: v for k, v in c["config"].items() if k not in ("out", "threads")}
    assert "<table>" in r._repr_html_() and argv[0] in repr(r)


def test_topo_and_route_functions():
    assert rica.topo("torus:4x4")["diameter"] == 4
    assert rica.route("torus:4x4", 0, 5)["hops"] == 2
    assert rica.route("torus:8x8", 0, 27, routing="adaptive")["hops"] >= 1


def test_out_keeps_the_files(tmp_path):
    r = rica.os("torus:4x4", parts=2, packets=5, slice="50", rate="0.2", out=str(tmp_path / "os"), no_plot=True)
    assert r.out == str(tmp_path / "os") and (tmp_path / "os" / "os.csv").stat().st_size > 0
    s = rica.sweep("torus:4x4", rates=[0.05, 0.1], cycles=300, out=str(tmp_path / "sw"), no_plot=True)
    rows = list(csv.DictReader(open(tmp_path / "sw" / "sweep.csv")))
    assert [f"{a:.6g}" for a in s["accepted"]] == [r["accepted"] for r in rows]


# ---- the same checks as the CLI, with the nearest name -------------------------------------------------
@pytest.mark.parametrize("call, argv, hint", [
    (lambda: rica.run("torus:4x4", traffic="unifrom"), ["run", "torus:4x4", "--traffic", "unifrom"], "'uniform'"),
    (lambda: rica.run("torsu:4x4"), ["run", "torsu:4x4"], "'torus'"),
    (lambda: rica.run("torus:4x4", engien="cycle"), ["run", "torus:4x4", "--engien", "cycle"], "'--engine'"),
    (lambda: rica.run("torus:4x4", app="reduec"), ["run", "torus:4x4", "--app", "reduec"], "'reduce'"),
    (lambda: rica.sweep("torus:4x4", rates="0.1", rate="0.2"), ["sweep", "torus:4x4", "--rates", "0.1", "--rate",
                                                                 "0.2"], "--rate and --rates"),
    (lambda: rica.os("torus:4x4", policy="dran"), ["os", "torus:4x4", "--policy", "dran"], "'drain'"),
    (lambda: rica.partition("torus:4x4", parts=0), ["partition", "torus:4x4", "--parts", "0"], "--parts"),
    (lambda: rica.embed("tre", "torus:4x4"), ["embed", "tre", "torus:4x4"], "'tree'"),
    (lambda: rica.experiment("mdce-dleta"), ["experiment", "mdce-dleta"], "'mdce-delta'"),
    (lambda: rica.bound("torus:4x4", traffic="tornadoo"), ["bound", "torus:4x4", "--traffic", "tornadoo"], "'tornado'"),
    (lambda: rica.topo("hypercub:4"), ["topo", "hypercub:4"], "'hypercube'"),
    (lambda: rica.route("torus:4x4", 0, 99), ["route", "torus:4x4", "0", "99"], "99"),
])
def test_refusals_are_the_clis(call, argv, hint):
    with pytest.raises(rica.RicaError) as e:
        call()
    assert str(e.value) == cli_error(*argv)
    assert hint in str(e.value)


def test_quiet_and_json_are_refused():
    with pytest.raises(rica.RicaError, match="quiet"):
        rica.partition("torus:4x4", quiet=True)
    with pytest.raises(rica.RicaError, match="json"):
        rica.bound("torus:4x4", json="x.json")


def test_config_seeds_any_function(tmp_path):
    r = rica.run("torus:4x4", engine="cycle", rate=0.1, cycles=300, json=str(tmp_path / "r.json"))
    cfg = tmp_path / "snake.json"
    cfg.write_text(json.dumps({"buffer_words": 16, "packet_words": "2:0"}))
    s = rica.run("torus:4x4", engine="cycle", rate=0.1, cycles=300, config=str(cfg))
    assert s.summary["config"]["buffer-words"] == 16 and s.summary["model"]["buffer_words"] == 16
    w = rica.sweep([], config=str(tmp_path / "r.json"), rates="0.1")  # the run's topology and options
    assert list(w["topology"]) == [r.summary["topology"]] and list(w["cycles"]) == [300]
    with pytest.raises(rica.RicaError, match="strict-config"):
        rica.sweep([], config=str(tmp_path / "r.json"), strict_config=True)


# ---- spec strings kept; sweep means with intervals ------------------------------------------------------
def test_results_keep_the_spec_given():
    r = rica.run("hypercube:6", engine="cycle", rate=0.05, cycles=300)
    assert r.spec == "hypercube:6" and r.topology == "hypercube:n=6"
    t = rica.Topology("hypercube:6")
    assert t.spec == "hypercube:6" and t.canonical == "hypercube:n=6"
    s = rica.sweep(["hypercube:6", "torus:4x4"], rates=[0.05, 0.1], cycles=300)
    assert list(s["spec"]) == ["hypercube:6"] * 2 + ["torus:4x4"] * 2
    assert list(s["topology"]) == ["hypercube:n=6"] * 2 + ["torus:4x4"] * 2
    assert list(s.means["spec"]) == ["hypercube:6"] * 2 + ["torus:4x4"] * 2
    pd = pytest.importorskip("pandas")
    f = s.frame()
    assert isinstance(f, pd.DataFrame) and len(f[f["spec"] == "hypercube:6"]) == 2
    assert r.frame().loc[0, "spec"] == "hypercube:6"


def test_sweep_seeds_give_means_and_intervals(tmp_path):
    s = rica.sweep(["torus:4x4"], rates=[0.05, 0.2], cycles=300, seeds=3, seed=5)
    assert len(s) == 6 and list(s["seed"]) == [5, 6, 7, 5, 6, 7]
    m = s.means
    assert list(m["seeds"]) == [3, 3] and list(m["rate"]) == [0.05, 0.2]
    for i in range(2):
        acc = [s["accepted"][3 * i + k] for k in range(3)]
        assert m["accepted_mean"][i] == pytest.approx(sum(acc) / 3)
        assert m["accepted_ci95"][i] > 0 and m["latency_ci95"][i] > 0
    p = cli("sweep", "torus:4x4", "--rates", "0.05,0.2", "--cycles", "300", "--seeds", "3", "--seed", "5",
            "--out", str(tmp_path), "--no-plot", "--quiet")
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(open(tmp_path / "sweep_mean.csv")))
    for i, row in enumerate(rows):
        assert f"{m['accepted_mean'][i]:.6g}" == row["accepted_mean"]
        assert f"{m['accepted_ci95'][i]:.6g}" == row["accepted_ci95"]
        assert f"{m['latency_ci95'][i]:.4f}" == row["latency_ci95"]
    assert "±" in s._repr_html_() and "6 runs, 2 points" in repr(s)


# ---- namespace, repr, version ------------------------------------------------------------------------
def test_clean_namespace_repr_and_version():
    import os as std_os

    assert callable(rica.os) and rica.os is not std_os and not hasattr(rica, "tempfile")
    for name in rica.__all__:
        assert hasattr(rica, name), name
    r = rica.run("torus:4x4", engine="cycle", rate=0.1, cycles=200)
    assert r.engine == "cycle" and "engine cycle" in repr(r) and "torus:4x4" in repr(r)
    assert "<table>" in r._repr_html_() and "cycle" in r._repr_html_()
    assert rica.run("torus:4x4", packets=5).engine == "async"
    version = cli("--version").stdout.split()[1]
    assert rica.__version__ == version and rica.__version__[0].isdigit()
    assert "<table>" in rica.Topology("torus:4x4")._repr_html_()


# ---- Ctrl-C -----------------------------------------------------------------------------------------
def test_ctrl_c_stops_a_run_within_two_seconds(tmp_path):
    out = tmp_path / "never.json"
    trace = tmp_path / "never.trace"
    script = ("import rica, sys\n"
              "print('started', flush=True)\n"
              f"rica.run('torus:32x32', engine='cycle', rate=0.3, cycles=2000000, threads=1, json={str(out)!r}, "
              f"trace={str(trace)!r})\n"
              "print('finished', flush=True)\n")
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ))
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.5)  # well inside the run (two million cycles take minutes)
    assert p.poll() is None
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=30)
    took = time.monotonic() - sent
    assert took < 2.0, f"{took:.2f} s"
    assert p.returncode != 0 and "KeyboardInterrupt" in stderr and "finished" not in stdout, stderr
    assert not out.exists() and not trace.exists()


def test_ctrl_c_stops_the_async_engine_within_two_seconds(tmp_path):
    out = tmp_path / "never.json"
    script = ("import rica\n"
              "print('started', flush=True)\n"
              f"rica.run('torus:64x64', engine='async', rate=1, packets=100000, threads=2, json={str(out)!r})\n"
              "print('finished', flush=True)\n")
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ))
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.5)  # well inside the run (400 million packets)
    assert p.poll() is None
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=30)
    took = time.monotonic() - sent
    assert took < 2.0, f"{took:.2f} s"
    assert p.returncode != 0 and "KeyboardInterrupt" in stderr and "finished" not in stdout, stderr
    assert not out.exists()


@pytest.mark.parametrize("call", [
    "rica.partition('torus:256x256', parts=4, pairs='all', threads=2)",
    "rica.bound('torus:128x128', all_pairs=True, threads=2)",
    "rica.embed('tree', 'torus:2048x2048', threads=2)",
])
def test_ctrl_c_stops_an_analysis(call):
    script = f"import rica\nprint('started', flush=True)\n{call}\nprint('finished', flush=True)\n"
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ))
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.5)
    assert p.poll() is None, "finished within 1.5 s: the test needs a longer analysis"
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0 and "KeyboardInterrupt" in stderr and "finished" not in stdout, stderr


def test_ctrl_c_stops_a_sweep(tmp_path):
    script = ("import rica\n"
              "print('started', flush=True)\n"
              f"rica.sweep(['torus:16x16'], rates='0.1,0.2,0.3', cycles=2000000, threads=1, jobs=2, "
              f"out={str(tmp_path / 'sw')!r})\n")
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ))
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.5)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, stderr = p.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0 and "KeyboardInterrupt" in stderr, stderr
    assert not (tmp_path / "sw" / "sweep.csv").exists()


def test_python_sigint_handler_is_back_after_a_call():
    before = signal.getsignal(signal.SIGINT)
    rica.run("torus:4x4", engine="cycle", rate=0.1, cycles=100)
    assert signal.getsignal(signal.SIGINT) is before


# ---- the interpreter the module was built for --------------------------------------------------------
def test_import_without_numpy_names_the_interpreter():
    p = subprocess.run([sys.executable, "-c", "import sys; sys.modules['numpy'] = None; import rica"],
                       capture_output=True, text=True, env=dict(os.environ))
    assert p.returncode != 0
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: rica: NumPy cannot be imported") and "was built for Python" in last, last
    assert sys.executable in last or "/python3" in last


def test_built_for_names_this_interpreter():
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in rica.BUILT_FOR


def test_native_module_of_another_abi_names_the_interpreter():
    # rica._rica unloadable (another Python's build): the message names the interpreter it was built for.
    p = subprocess.run([sys.executable, "-c", "import sys; sys.modules['rica._rica'] = None; import rica"],
                       capture_output=True, text=True, env=dict(os.environ))
    assert p.returncode != 0
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: rica: the native module rica._rica cannot be loaded"), last
    assert "was built for Python" in last and "-DPython3_EXECUTABLE=" in last, last


# ---- trace= as --trace: the table always, the CSV kept in FILE; '-' refused ---------------------------
def test_trace_keyword_means_the_clis_trace(tmp_path):
    path = tmp_path / "t.csv"
    r = rica.run("torus:4x4", engine="cycle", rate=0.1, cycles=200, trace=str(path))
    rows = list(csv.DictReader(open(path)))
    assert len(rows) == len(r.trace["src"]) == r.delivered > 0
    assert list(rows[0]) == list(r.trace) == ["src", "dst", "seq", "inject", "deliver", "hops", "enter", "words"]
    with pytest.raises(rica.RicaError, match="trace: '-'"):
        rica.run("torus:4x4", packets=1, trace="-")
    doc = [line for line in rica.run.__doc__.splitlines() if line.strip().startswith("trace=")]
    assert len(doc) == 1 and doc[0].strip().startswith("trace=True|FILE:") and "enter, words" in doc[0], doc


def test_bound_refuses_rank_split():
    # rica bound computes in one process: --rank-split (an MPI machine's option) is not one of its options,
    # with any value; Python refuses it in the CLI's words.
    for split in ("partition", "blocks"):
        with pytest.raises(rica.RicaError, match="unknown option '--rank-split' of 'rica bound'"):
            rica.bound("torus:4x4", rank_split=split)
        assert "unknown option '--rank-split' of 'rica bound'" in cli_error("bound", "torus:4x4", "--rank-split", split)
