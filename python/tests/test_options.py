"""Issue 27: the Python keywords come from the CLI's option table and registrations
(rica.options): every option of `rica COMMAND --help` is a keyword with its default and help, the
docstrings list them, and an option given as a keyword reaches the run's recorded configuration
as the CLI's option would. (tests/test_option_table.cpp shows a test-only option registered from
its own file reaching the same list.)"""
import os
import re
import subprocess

import pytest

import rica

RICA = os.environ.get("RICA_BINARY", os.path.join(os.path.dirname(__file__), "../../build/rica"))


def help_options(command):
    """The long options `rica COMMAND --help` lists."""
    text = subprocess.run([RICA, *command.split(), "--help"], capture_output=True, text=True).stdout
    return {m for m in re.findall(r"^\s+(?:-\w,)?(--[a-z][a-z0-9-]*)", text, re.M)} - {"--help"}


@pytest.mark.parametrize("command", ["run", "sweep", "os", "os-stream", "partition", "embed", "experiment", "bound",
                                     "topo", "route", "app sort"])
def test_keywords_are_the_help_options(command):
    docs = rica.options(command)
    named = {o["option"] for o in docs if not o["positional"]}
    assert named == help_options(command)
    for o in docs:
        assert o["keyword"] == o["option"].lstrip("-").replace("-", "_")


def test_table_facts_and_docstrings():
    run = {o["keyword"]: o for o in rica.options("run")}
    assert run["buffer_words"]["default"] == "32" and run["buffer_words"]["table"]
    assert run["cycles"]["engines"] == "the cycle engine only" and run["engine"]["engines"] == "every engine"
    assert run["no_classes"]["flag"] and not run["trace"]["configuration"]
    assert run["topology"]["positional"]
    for keyword in ("buffer_words", "link_cycles", "router_cycles", "faults", "telemetry"):
        assert f"    {keyword}=" in rica.run.__doc__, keyword
    assert "    warmup=UINT (default 1000; the cycle engine only)" in rica.sweep.__doc__
    assert "    parts=" in rica.os.__doc__ and "    all_pairs=True" in rica.bound.__doc__
    with pytest.raises(rica.RicaError, match="not a rica subcommand"):
        rica.options("rnu")


def test_a_keyword_reaches_the_configuration():
    r = rica.run("torus:4x4", engine="cycle", cycles=200, rate=0.05, buffer_words=16, link_cycles="words")
    assert r.summary["config"]["buffer-words"] == 16 and r.summary["config"]["link-cycles"] == "words"
    with pytest.raises(rica.RicaError, match="--timing applies to the cycle engine only"):
        rica.run("torus:4x4", timing="saf", packets=5)
