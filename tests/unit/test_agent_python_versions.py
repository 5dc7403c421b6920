"""The agent runs on the oldest Pythons in the images: checked statically and for real."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import old_pythons

from harness.measurement import scenario
from harness.measurement.backends.process import ProcessBackend
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell

ROOT = Path(__file__).resolve().parents[2]


def test_vermin_says_27_and_35_suffice() -> None:
    vermin = shutil.which("vermin") or str(Path(sys.executable).parent / "vermin")
    result = subprocess.run([vermin, "-q", "--no-tips", "--violations", "-t=2.7-", "-t=3.5-", str(ROOT / "harness" / "agent"),
                             str(ROOT / "images" / "tf1.8" / "rename_version.py")],  # runs in TF 1.8's Python 2.7 image build
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("python", old_pythons() or [pytest.param(None, marks=pytest.mark.skip("no Python 2.7/3.5/3.6 here"))])
def test_a_cell_runs_under_an_old_python(python: str, tmp_path: Path) -> None:
    spec = scenario.load(ROOT / "tests" / "scenarios" / "alloc_free.py")
    options = CellOptions(run_id="old", run_dir=tmp_path, env_name="old", env_facts={}, params={"mib": 256})
    record = run_cell(ProcessBackend(python=python), spec, options, Nvml(False, "not needed"))
    assert record["status"] == "ok", record["stderr_tail"]
    assert record["facts"]["python"].startswith(Path(python).name[6:9])
    assert [s["verdict"] for s in record["verdicts"]["steps"]] == ["released"]
