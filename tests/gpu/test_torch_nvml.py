"""On a GPU host: torch cleanup steps measured with NVML through the process backend.

Runs where NVML answers and torch sees CUDA (the GPU machine); skipped elsewhere, and CI has
no GPU. Asserts what the driver saw, not what torch says.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.measurement import scenario
from harness.measurement.backends.process import ProcessBackend
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]
GiB = 1024**3


@pytest.fixture(scope="module")
def nvml():
    handle = Nvml.open()
    if not handle.available:
        pytest.skip(f"no GPU here: {handle.reason}")
    yield handle
    handle.close()


def _run(nvml: Nvml, name: str, tmp_path: Path, **params: object) -> dict:
    spec = scenario.load(ROOT / "harness" / "scenarios" / "torch" / f"{name}.py")
    options = CellOptions(run_id="gpu-test", run_dir=tmp_path, env_name="host", env_facts={}, params=params)
    return run_cell(ProcessBackend(python=sys.executable), spec, options, nvml)


def test_del_gc_empty_cache_4gib(nvml: Nvml, tmp_path: Path) -> None:
    record = _run(nvml, "del_gc_empty_cache", tmp_path, gib=4.0)
    assert record["status"] == "ok", record["error"]
    cps = {cp["label"]: cp for cp in record["checkpoints"]}
    proc = {label: cp["readings"]["nvml_process"] for label, cp in cps.items()}
    assert proc["peak"] - proc["ready"] >= 4 * GiB - 64 * 1024**2
    assert cps["after_del"]["view"]["torch"]["in_use"] < cps["peak"]["view"]["torch"]["in_use"] - 3 * GiB
    steps = {s["label"]: s["verdict"] for s in record["verdicts"]["steps"]}
    assert steps["after_del"] == "cached"  # torch counts it free, the driver still holds it
    assert steps["after_empty_cache"] == "released"
    assert record["verdicts"]["exit"]["verdict"] == "returned"


def test_child_process_memory_is_counted_and_returned(nvml: Nvml, tmp_path: Path) -> None:
    record = _run(nvml, "child_process", tmp_path, gib=2.0)
    assert record["status"] == "ok", record["error"]
    proc = {cp["label"]: cp["readings"]["nvml_process"] for cp in record["checkpoints"]}
    assert proc["peak"] >= 2 * GiB  # the child's memory, found by host PID
    assert proc["after_child_exit"] == 0
