"""What the holder search saw alive at a step, where no framework count says what is live: host memory of a CPU
run (torch keeps no count of CPU tensors), TensorFlow before 2.5. The agent's search at that checkpoint
(agent/holders.py) counted the arrays the process still keeps, each allocation once; that much of what is
left is held by live objects, named in repro.md, and only the rest is "held by the process"."""
from __future__ import annotations

from typing import cast

from harness.model.judged import Step
from harness.model.record import CellRecord

# the search's device for each meter it can stand for: host arrays for RSS, GPU arrays for NVML's readings
DEVICE_OF_METER = {"rss": "cpu", "nvml_process": "gpu", "nvml_device": "gpu"}


def at_steps(record: CellRecord, steps: list[Step]) -> list[Step]:
    """Each step whose framework gives no count of its own and whose checkpoint was searched, with ``named``: the
    live arrays the search saw there (never more than is left), where that is more than the step's tolerance."""
    found = {cp["label"]: cp.get("holders") or {} for cp in record.get("checkpoints") or []}
    out = []
    for step in steps:
        holders = found.get(step["label"]) or {}
        named = 0
        if (step.get("framework_left") is None and not holders.get("error")
                and holders.get("device") == DEVICE_OF_METER.get(str(step.get("meter")))):
            named = min(int(holders.get("total") or 0), max(0, step.get("left") or 0))
        out.append(cast(Step, {**step, "named": named}) if named > (step.get("tol") or 0) else step)
    return out
