"""TensorFlow 1.8, the first release the tool names, on a machine without its image: a Python 2.7
virtualenv made by virtualenv 20.21.1 (the last that makes 2.7 environments) run from the tool's own
Python, installed by the tool into its cache; a Python 2.7 rarely has virtualenv of its own."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from harness.environments import venvs


def test_tf18_runs_in_a_python27_virtualenv_the_tool_makes(tmp_path: Path) -> None:
    python = venvs.find_python("2.7")
    if python is None:
        pytest.skip("no Python 2.7 on this machine (pyenv or uv would keep one)")
    assert "No module named virtualenv" in subprocess.run([python, "-m", "virtualenv", "--version"],
                                                          capture_output=True, text=True).stderr  # as CI's has none
    done = subprocess.run([sys.executable, "-m", "harness", "matrix", "--env", "tf1.8", "--backend", "venv", "--variant",
                           "cpu", "--scenario", "tf1/session_close", "--venv-dir", str(tmp_path / "venvs"),
                           "--results", str(tmp_path / "results")], cwd=ROOT, capture_output=True, text=True, timeout=1800,
                          env=dict(os.environ, NO_COLOR="1", XDG_CACHE_HOME=str(tmp_path / "cache")))
    assert done.returncode == 0, done.stderr[-3000:]
    (record_path,) = (tmp_path / "results").glob("*/tf1.8/*.json")
    record = json.loads(record_path.read_text())
    assert record["status"] == "ok", record.get("error")
    assert record["facts"]["python"].startswith("2.7") and record["facts"]["frameworks"]["tensorflow"] == "1.8.0"
    assert (tmp_path / "cache" / "gpu-cleanup-matrix" / "virtualenv-20.21.1" / "virtualenv").is_dir()
