"""An independent check of the per-process meter: nvidia-smi at the same checkpoints.

While the agent waits at a checkpoint (after the harness has read NVML), nvidia-smi's
--query-compute-apps is read too; the two must agree within the settle band plus nvidia-smi's
MiB rounding. Runs on a GPU host only.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.measurement import meters, scenario
from harness.measurement.backends.process import ProcessBackend
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024


def _smi_by_pid() -> dict[int, int]:
    out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, timeout=30).stdout
    rows = {}
    for line in out.strip().splitlines():
        pid, used = (part.strip() for part in line.split(","))
        if used.isdigit():
            rows[int(pid)] = int(used) * MiB
    return rows


def test_nvidia_smi_agrees_with_the_process_meter(tmp_path: Path) -> None:
    nvml = Nvml.open()
    if not nvml.available or not shutil.which("nvidia-smi"):
        pytest.skip(f"no GPU here: {nvml.reason or 'no nvidia-smi'}")
    seen: dict[str, dict[int, int]] = {}

    def progress(kind: str, data: dict) -> None:
        if kind == "checkpoint":
            seen[data["label"]] = _smi_by_pid()

    spec = scenario.load(ROOT / "harness" / "scenarios" / "torch" / "del_gc_empty_cache.py")
    options = CellOptions(run_id="smi", run_dir=tmp_path, env_name="host", env_facts={}, params={"gib": 2.0})
    record = run_cell(ProcessBackend(python=sys.executable), spec, options, nvml, progress)
    nvml.close()
    assert record["status"] == "ok", record["error"]
    pid = record["agent"]["pid"]
    for cp in record["checkpoints"]:
        ours = cp["readings"]["nvml_process"]
        theirs = seen[cp["label"]].get(pid, 0)
        assert abs(ours - theirs) <= meters.SETTLE_BAND_BYTES + MiB, (cp["label"], ours, theirs)
