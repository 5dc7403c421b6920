"""Shared test helpers: run a scenario file for real through the process backend."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import SCENARIOS


@pytest.fixture
def run_scenario(tmp_path: Path):
    """Run a test scenario through the process backend; return its judged record."""
    from harness.measurement import scenario
    from harness.measurement.backends.process import ProcessBackend
    from harness.measurement.nvml import Nvml
    from harness.measurement.runner import CellOptions, run_cell
    from harness.reporting import results

    def run(name: str, *, timeout: float | None = None, params: dict[str, Any] | None = None) -> dict[str, Any]:
        spec = scenario.load(SCENARIOS / f"{name}.py")
        options = CellOptions(run_id="test", run_dir=tmp_path, env_name="local", env_facts={},
                              params=params or {}, timeout=timeout)
        nvml = Nvml.open()
        try:
            record = run_cell(ProcessBackend(python=sys.executable), spec, options, nvml)
        finally:
            nvml.close()
        results.write_record(tmp_path, record)
        return record

    return run
