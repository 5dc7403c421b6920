"""Real runs for the report tests: cells of every outcome, made by the harness itself."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from helpers import SCENARIOS

from harness.measurement import scenario
from harness.measurement.backends.process import ProcessBackend
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell
from harness.reporting import aggregate
from harness.store import results

MISSING = ("local", "tests/never_ran")


def make_run(run_dir: Path, cells: list[tuple[str, dict[str, Any], float | None]]) -> dict[str, Any]:
    """Run each (scenario, params, timeout) through the process backend into ``run_dir``; render."""
    planned = []
    for name, params, timeout in cells:
        spec = scenario.load(SCENARIOS / f"{name}.py")
        options = CellOptions(run_id=run_dir.name, run_dir=run_dir, env_name="local", env_facts={}, params=params,
                              timeout=timeout)
        record = run_cell(ProcessBackend(python=sys.executable), spec, options, Nvml(False, "not needed"))
        results.write_record(run_dir, record)
        planned.append(("local", record["scenario"]["name"]))
    planned.append(MISSING)
    results.write_manifest(run_dir, {"run_id": run_dir.name, "planned": planned})
    return aggregate.write_reports(run_dir, note="test run")


EVERY_OUTCOME = [
    ("alloc_free", {"mib": 512}, None),
    ("raises", {}, None),
    ("missing_api", {}, None),
    ("hangs", {"pidfile": "/dev/null"}, 3.0),
    ("hard_exit", {}, None),
]
