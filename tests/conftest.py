"""Shared test helpers: run a scenario file for real through the process backend."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "scenarios"


@pytest.fixture
def run_scenario(tmp_path: Path):
    """Run a test scenario through the process backend; return its judged record."""
    from harness import results, scenario
    from harness.backends.process import ProcessBackend
    from harness.nvml import Nvml
    from harness.runner import CellOptions, run_cell

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


def harness_cli(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m harness ARGS`` in a fresh interpreter, as a user would run it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=timeout)


def processes_with(marker: str) -> list[int]:
    """PIDs whose command line contains ``marker`` (to prove nothing is left running)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in cmdline:
                found.append(int(entry))
    return found
