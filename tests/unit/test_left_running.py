"""A process a script leaves running (a detached child in its own session) is found, named,
killed and reported, at the script's normal end and at its timeout. Real processes, real signals."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from harness.judgement.cell import judge_cell
from harness.measurement import procs
from harness.measurement.backends.process import ProcessBackend
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell
from harness.reporting import matrix_md, repro_md
from harness.running import repro

DETACH = """import os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(120)"])
print("child", child.pid)
{after}
"""


def _run(tmp_path: Path, after: str, timeout: float) -> dict:
    script = tmp_path / "detach.py"
    script.write_text(DETACH.format(after=after))
    item = repro.script_scenario(script, timeout, plain=True)
    options = CellOptions(run_id="r", run_dir=tmp_path, env_name="local", env_facts={}, params={}, timeout=timeout)
    return run_cell(ProcessBackend(python=sys.executable), item, options, Nvml(False, "not needed"))


def _child(record: dict) -> dict:
    (child,) = [k for k in record["killed"] if k["role"] == "started by the script"]
    return child


def test_a_detached_child_outliving_the_script_is_named_and_killed(tmp_path: Path) -> None:
    record = _run(tmp_path, "time = 0", timeout=60)
    assert record["status"] == "ok"
    child = _child(record)
    assert "os.setsid(); time.sleep(120)" in child["command"] and child["rss"] > 0
    assert not procs.alive(child["pid"])
    said = repro_md.markdown([record], tmp_path / "detach.py")
    assert f"once the harness had killed 1 process still running as the cell ended: PID {child['pid']}" in said
    assert f"killed by the harness: PID {child['pid']}" in matrix_md.cell_text(judge_cell(record))


def test_the_timeout_fires_and_kills_the_script_and_what_it_detached(tmp_path: Path) -> None:
    started = time.monotonic()
    record = _run(tmp_path, "child.wait()", timeout=4)
    assert time.monotonic() - started < 20
    assert record["status"] == "timeout"
    assert {k["role"] for k in record["killed"]} == {"script", "started by the script"}
    assert not procs.alive(_child(record)["pid"])


def test_a_script_reading_stdin_gets_end_of_file_and_the_report_says_so(tmp_path: Path) -> None:
    script = tmp_path / "detach.py"
    script.write_text("import sys\ndata = sys.stdin.read()\nprint('read', len(data))\n")
    item = repro.script_scenario(script, 30, plain=True)
    options = CellOptions(run_id="r", run_dir=tmp_path, env_name="local", env_facts={}, params={}, timeout=30)
    record = run_cell(ProcessBackend(python=sys.executable), item, options, Nvml(False, "not needed"))
    assert record["status"] == "ok" and "read 0" in record["stderr_tail"]  # never blocks waiting for input
    assert "reads standard input, which is not connected" in repro_md.markdown([record], script)
