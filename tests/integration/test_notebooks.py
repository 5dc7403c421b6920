"""A notebook under repro runs as a kernel runs it, in a real IPython shell: what the kernel keeps
(``Out``, ``_1``, the last error's traceback) is kept, a failing cell is shown and the next one runs,
magics and ``!`` lines run and install lines are listed; the notebook's own output is the output of the
same notebook run bare in IPython (tests/fidelity/notebook_bare.py); what holds memory is named as a
notebook user knows it. IPython comes from the tool (the interpreters and images here have none)."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, harness_cli

from harness.environments import ipython_site

NOTEBOOKS = ROOT / "tests" / "repro" / "notebooks"
BARE = ROOT / "tests" / "fidelity" / "notebook_bare.py"


def _marked(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("NB ")]


def _run(tmp_path: Path, *args: str) -> tuple[dict[str, Any], str, str]:
    """repro's record, repro.md and the notebook's own output (its cell log)."""
    results = tmp_path / "results"
    done = harness_cli("repro", *args, "--results", str(results), timeout=900,
                       env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr[-3000:]
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    (record_path,) = [p for p in run_dir.glob("*/repro__*.json")]
    (log,) = (run_dir / "logs").rglob("*.log")
    return json.loads(record_path.read_text()), (run_dir / "repro.md").read_text(), log.read_text(errors="replace")


def test_a_notebook_runs_as_a_kernel_runs_it_and_as_it_runs_bare(tmp_path: Path) -> None:
    record, text, log = _run(tmp_path, str(NOTEBOOKS / "kernel_keeps.ipynb"), "--interpreter", sys.executable)
    labels = [cp["label"] for cp in record["checkpoints"]]
    assert labels[:4] == ["start", "end of cell 1", "cell 2, line 2: del b", "cell 2, line 3: gc.collect()"], labels
    assert "cell 5, line 1: %pip install torch==2.0.0" in record["notebook"]["not_run"]
    assert record["notebook"]["errors"] == [{"cell": 3, "type": "ValueError", "message": "boom in step"}]
    own = importlib.util.find_spec("IPython") is not None
    assert record["notebook"]["origin"] == ("the environment's own" if own else "installed by the tool for this Python")
    assert _marked(log) == [
        "NB Out keeps cell 1: True Big Big",  # Out[1] and _1: the kernel's output history
        "NB last error kept: ValueError True",  # the failing cell was shown, the next one ran
        "NB from the shell",  # a ! line runs
        "NB In has 6 entries; total 499500",  # %time ran the assignment
        "NB suppressed value kept: False ; last [1]",  # `x = 1;` shows nothing, keeps nothing
    ], log[-3000:]
    assert "Cell 3 raised `ValueError: boom in step`" in text and "Not run, listed" in text
    # The 256 MiB object `del b` should free is kept by Out[1]: held, as a kernel holds it (a script frees it).
    step = next(s for s in record["verdicts"]["steps"] if s["label"] == "cell 2, line 3: gc.collect()")
    assert step["verdict"] in ("held", "partial") and step["left"] > 250 << 20, step
    folder = next((tmp_path / "cache" / "gpu-cleanup-matrix" / "ipython").iterdir())
    bare = subprocess.run([sys.executable, str(BARE), str(NOTEBOOKS / "kernel_keeps.ipynb"), str(folder)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert _marked(bare.stdout) == _marked(log), (bare.stdout[-2000:], bare.stderr[-2000:])
    for path in (str(ROOT), sys.executable, str(tmp_path), str(Path.home())):  # named by what it is, no path of here
        assert path not in text, path


def test_a_percent_file_and_a_part_of_a_notebook(tmp_path: Path) -> None:
    record, _, log = _run(tmp_path / "a", str(NOTEBOOKS / "kernel_keeps_percent.py"), "--interpreter", sys.executable)
    assert _marked(log) == ["NB Out keeps cell 1: True Big Big"]
    assert record["notebook"]["cells"] == [1, 2]
    record, _, log = _run(tmp_path / "b", str(NOTEBOOKS / "kernel_keeps.ipynb"), "--cells", "2-4",
                          "--interpreter", sys.executable)
    assert [cp["label"] for cp in record["checkpoints"]][-3:] == ["cell 4, line 1: gc.collect()", "end of cell 4", "end"]
    errors = record["notebook"]["errors"]  # without cell 1, `del b` fails: the next cells still run
    assert [(e["cell"], e["type"]) for e in errors] == [(2, "NameError"), (3, "NameError")], errors
    assert "Cell In[3], line 4" in log  # cell n is In[n] in a part too


def test_ipython_is_pinned_per_python() -> None:
    assert ipython_site.pin_for("3.6") == "ipython==7.16.3"
    assert ipython_site.pin_for("3.10") == "ipython==8.37.0"
    assert ipython_site.pin_for("3.13") == ipython_site.pin_for("3.11")
    with pytest.raises(Exception, match="simplegeneric"):
        ipython_site.pin_for("2.7")


@pytest.mark.docker
def test_in_the_torch_image_what_ipython_keeps_is_named_and_output_is_as_bare(cpu_image: Any, tmp_path: Path) -> None:
    tag = cpu_image("torch")
    notebook = NOTEBOOKS / "torch_out_history.ipynb"
    record, text, log = _run(tmp_path, str(notebook), "--env", "torch", "--backend", "docker", "--variant", "cpu")
    assert "What holds the host memory at `cell 5, line 1: gc.collect()`:" in text, text
    assert re.search(r"- IPython's output history keeps what the last line of cell 2 showed \(`Out\[2\]`, also `_2`\): "
                     r"2 tensors \(64\.02 MiB\).*`%xdel NAME` instead of `del NAME`", text), text
    assert re.search(r"- the traceback IPython keeps of the last error \(`sys.last_traceback`\) keeps the frame of "
                     r"`forward\(\)` and its locals: 1 tensor \(256\.00 MiB\).*\(`1/0`\)", text), text
    assert f"; image {tag}" in text and "IPython 9.18.1 shell (installed by the tool for this Python)" in text
    folder = next((tmp_path / "cache" / "gpu-cleanup-matrix" / "ipython").iterdir())
    bare = subprocess.run(["docker", "run", "--rm", "--network", "none", "--user", "65534:65534", "-e", "HOME=/tmp",
                           "-v", f"{NOTEBOOKS}:/nb:ro", "-v", f"{folder}:/ipy:ro", "-v", f"{BARE.parent}:/bare:ro",
                           "-w", "/tmp", tag, "python", "/bare/notebook_bare.py", f"/nb/{notebook.name}", "/ipy"],
                          capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert _marked(bare.stdout) == _marked(log) != [], (bare.stdout[-2000:], log[-2000:])
