"""A peak too brief for the 100 Hz timeline (memory taken and given back within one line) is still the
script's peak on the host: the kernel's high-water mark, read at each checkpoint, says how high it went
(real process, real allocations, the sampler slowed so that it sees none of it)."""
from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest

from harness.measurement import runner
from harness.measurement.backends.process import ProcessBackend
from harness.measurement.meters import TimelineSampler
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell
from harness.measurement.scenario import Scenario
from harness.reporting import repro_md

MiB = 1 << 20
SCRIPT = """import gc
kept = [bytearray(32 << 20) for _ in range(16)][:3]  # 512 MiB, every page written; 96 MiB kept
gc.collect()
"""


def test_a_peak_between_two_samples_is_the_kernels_high_water_mark(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "TimelineSampler", functools.partial(TimelineSampler, interval=60.0))
    script = tmp_path / "brief.py"
    script.write_text(SCRIPT)
    item = Scenario(name="repro/brief", path=script, families=("any",), mode="repro")
    options = CellOptions(run_id="r", run_dir=tmp_path, env_name="local", env_facts={}, params={})
    record = run_cell(ProcessBackend(python=sys.executable), item, options, Nvml(False, "not needed"))
    assert record["status"] == "ok", record["stderr_tail"]
    assert len(record["timeline"]["samples"]) <= 2  # the sampler saw nothing between the checkpoints
    marks = [cp["readings"].get("rss_peak") for cp in record["checkpoints"]]
    assert marks[-1] - marks[0] >= 500 * MiB, marks
    step = {s["label"]: s for s in record["verdicts"]["steps"]}["brief.py:3: gc.collect()"]
    assert step["grown"] >= 500 * MiB and 90 * MiB <= step["left"] <= 110 * MiB, step
    assert step["verdict"] == "partial"  # 96 of 512 MiB left; without the mark the peak would be what is left: held
    (row,) = [line for line in repro_md.markdown([record], script).splitlines() if "too brief for the timeline" in line]
    assert row.startswith("| *peak between `start` and `brief.py:3: gc.collect()`") and "high-water mark" in row, row
    assert "MiB" in row and 500 <= float(row.split(" | ")[1].split()[0]) <= 560, row  # the host RSS column: ~525 MiB
