"""Ctrl-C in every Python call that can run long (issue 40): SIGINT during rica.os_stream and
rica.experiment (rica.partition, rica.bound and rica.embed: test_commands.py) raises
KeyboardInterrupt within a second or two on a loaded host, and leaves no file behind."""
import os
import signal
import subprocess
import sys
import time

import pytest


@pytest.mark.parametrize("call", [
    # 400 jobs of up to 256 PEs under gang scheduling: minutes.
    "rica.os_stream('torus:16x16', 'poisson:jobs=400,rate=2,size=4:256,length=200,seed=3', sched='gang', "
    "policy='drain', threads=2)",
    # A full experiment set-up: minutes; its files would go to out=.
    "rica.experiment('mdce-1024', out=OUT, threads=2)",
])
def test_ctrl_c_stops_a_long_call_and_writes_nothing(call, tmp_path):
    out = tmp_path / "out"
    script = (f"import rica\nOUT = {str(out)!r}\nprint('started', flush=True)\n{call}\n"
              "print('finished', flush=True)\n")
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ))
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.5)
    assert p.poll() is None, "finished within 1.5 s: the test needs a longer call"
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    took = time.monotonic() - sent
    assert took < 2.0, f"{took:.2f} s"
    assert p.returncode != 0 and "KeyboardInterrupt" in stderr and "finished" not in stdout, stderr
    left = [str(f) for f in out.rglob("*") if f.is_file()] if out.exists() else []
    assert not left, left


RICA = os.environ.get("RICA_BINARY", os.path.join(os.path.dirname(__file__), "../../build/rica"))


@pytest.mark.parametrize("args", [
    # refused before the run: a job larger than the machine, named with its line
    ["torus:4x4", "--jobs", "{swf}"],
    # refused during the run: more jobs resident at once than a packet can name
    ["torus:32x32", "--jobs", "poisson:jobs=300,rate=1000,size=2,length=100", "--alloc", "first-fit"],
])
def test_a_refused_os_stream_leaves_no_out_directory(args, tmp_path):
    swf = tmp_path / "big.swf"
    swf.write_text("1 0 -1 10 4 -1 -1 4 -1 -1 1 1 1 1 1 1 -1 -1\n2 5 -1 10 32 -1 -1 32 -1 -1 1 1 1 1 1 1 -1 -1\n")
    out = tmp_path / "never"
    p = subprocess.run([RICA, "os-stream", *[a.format(swf=swf) for a in args], "--no-plot", "--out", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not out.exists()
    if "{swf}" in args:
        assert f"{swf}:2: job 2 asks for 32 PEs; torus:4x4 has 16" in p.stderr, p.stderr
