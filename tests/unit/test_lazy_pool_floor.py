"""torch 1.0.1 on an H100, run before the agent read that release's own count: its first touch took the 900 MiB
CUDA context and 100 MiB more followed. With no count to say what the pool held, a first touch larger than what
followed was read as a pool mapped whole at the first touch (right for TensorFlow and JAX), so the context was
"held by the process", and the cell's two runs disagreed. torch's allocator maps memory only as asked: the first
touch beyond it is the runtime's."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from harness.judgement import verdicts
from harness.judgement.cell import judge_cell

RECORD = Path(__file__).resolve().parents[1] / "data" / "records" / "old-torch-h100" / "torch__loss_history_loop@as_float.json.gz"
MiB = 1 << 20


def test_torch_without_its_count_has_its_context_as_the_runtime_not_a_pool() -> None:
    record = json.loads(gzip.decompress(RECORD.read_bytes()))
    assert all(not cp.get("view") for cp in record["checkpoints"])  # no framework count in this run
    judged = verdicts.judge(record)
    assert (judged["premapped"], judged["floor_basis"]) == (False, "pre-GPU + runtime")
    assert judged["runtime_cost"] == 900 * MiB
    steps = {step["label"]: step for step in judged["steps"]}
    assert (steps["after_empty_cache"]["verdict"], steps["after_empty_cache"]["left"]) == ("released", 0)
    record["verdicts"] = judged
    assert judge_cell(record)["glance"]["back"] == "all"  # as the run with torch's count says


def test_a_framework_whose_pool_is_mapped_whole_keeps_the_first_touch_reading() -> None:
    """The same readings from a TensorFlow process: its pool is mapped at the first touch, as before."""
    record = json.loads(gzip.decompress(RECORD.read_bytes()))
    record["facts"]["frameworks"] = {"tensorflow": "2.4.4"}
    assert verdicts.judge(record)["premapped"] is True
