"""A script's processes that leave its tree, run for real through `repro` (process backend): the
cell ends with the script, and each of them is found, named, killed and reported, whether it kept
the cell's pipes or closed them."""
from __future__ import annotations

import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from helpers import DETACHING, harness_cli, processes_with


def run_detaching(tmp_path: Path, close: bool, *where: str) -> None:
    """Run DETACHING through repro in ``where``; the checks a user would make of it."""
    marker = f"harness-detached-{uuid.uuid4().hex}"
    script = tmp_path / "detaching.py"
    script.write_text(DETACHING.format(close=close, marker=marker))
    began = time.monotonic()
    result = harness_cli("repro", str(script), *where, "--timeout", "30", "--results", str(tmp_path / "r"))
    took = time.monotonic() - began
    assert result.returncode == 0, result.stderr[-2000:]
    (path,) = [p for p in (tmp_path / "r").glob("*/*/*.json") if p.parent.name != "logs"]
    record: dict[str, Any] = json.loads(path.read_text())
    assert record["status"] == "ok" and record["exit_code"] == 0
    assert took < 30, f"the run took {took:.0f} s: the detached process held the cell"
    assert not processes_with(marker), "a process the script started is still alive after the run"
    (killed,) = record["killed"]
    assert killed["role"] == "started by the script" and marker in killed["command"]
    assert f"PID {killed['pid']} (started by the script)" in result.stdout  # named in the Markdown block


def test_a_detached_grandchild_that_keeps_the_pipes_does_not_hold_the_cell(tmp_path: Path) -> None:
    run_detaching(tmp_path, False, "--interpreter", sys.executable)


def test_a_daemon_that_closed_its_stdio_is_found_all_the_same(tmp_path: Path) -> None:
    run_detaching(tmp_path, True, "--interpreter", sys.executable)


def test_a_script_that_does_not_compile_is_refused_before_anything_starts(tmp_path: Path) -> None:
    script = tmp_path / "broken.py"
    script.write_text("import torch\nx = torch.zeros(3)\nif x:\nprint(x)\n")
    result = harness_cli("repro", str(script), "--results", str(tmp_path / "r"))
    assert result.returncode == 2
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("gpu-cleanup-matrix: error:")]
    assert f"{script}:4:" in line and "expected an indented block" in line and "Traceback" not in result.stderr
    assert not (tmp_path / "r").exists()  # no run folder: nothing was made or started


def test_ctrl_c_stops_what_the_script_detached(tmp_path: Path) -> None:
    """The run is interrupted while the script still runs: its detached grandchild goes too."""
    import os
    import signal
    import subprocess
    import sys as _sys

    from helpers import ROOT, default_sigint

    marker = f"harness-detached-{uuid.uuid4().hex}"
    script = tmp_path / "detaching.py"
    script.write_text(DETACHING.format(close=True, marker=marker) + "import time\ntime.sleep(60)\n")
    run = subprocess.Popen([_sys.executable, "-m", "harness", "repro", str(script), "--interpreter", _sys.executable,
                            "--results", str(tmp_path / "r")], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=dict(os.environ, NO_COLOR="1"), preexec_fn=default_sigint)
    began = time.monotonic()
    while not processes_with(marker) and time.monotonic() - began < 30:
        time.sleep(0.1)
    assert processes_with(marker), "the grandchild never started"
    run.send_signal(signal.SIGINT)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 130 and "interrupted" in stderr
    assert not processes_with(marker), "a detached process outlived the interrupted run"
