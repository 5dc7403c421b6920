"""What of the host memory a script left at `end` no live object holds, told from what does: the C allocator's
free heap (malloc_trim(0) gave it back) and reference cycles Python's garbage collector had not yet freed (a forked
copy freed them), both measured by the agent once the script was done (agent/garbage.py, rules 24 and 26)."""
from __future__ import annotations

from typing import cast

from harness.judgement.tolerances import FRAMEWORK_RULE
from harness.model.judged import Step
from harness.model.record import CellRecord


def at_end(record: CellRecord, steps: list[Step]) -> list[Step]:
    """What of the memory left at `end` was the C allocator's free heap and what cycles gc had not yet freed
    (agent/garbage.py: once `end` was measured), on its step, each where it is more than the step's tolerance. On the
    host's meter, what freeing the cycles gave back; on a GPU meter, the bytes of the framework's arrays only they keep
    (never more than the framework counts in use)."""
    trim = record.get("heap_trim") or {}
    if trim.get("before") is None or trim.get("after") is None:
        return steps
    census = trim.get("garbage") or {}
    freed, cycles, arrays = max(0, trim["before"] - trim["after"]), census.get("freed") or 0, census.get("arrays") or {}
    out = []
    for step in steps:
        left, tol, end = max(0, step.get("left") or 0), step.get("tol") or 0, step.get("label") == "end"
        if not end:
            out.append(step)
            continue
        if step.get("meter") == "rss":
            heap = min(freed, left)
            said = {"heap": heap, "garbage": min(cycles, left - heap)}
            said = {k: n for k, n in said.items() if n > tol}  # less is the meter's noise
        else:  # the framework's own count holds them: what it says is in use, no more, as exact as that count
            said = {"garbage": min(sum(arrays.values()), left, step.get("framework_left") or 0)}
            said = {k: n for k, n in said.items() if n > FRAMEWORK_RULE.abs_tol}  # not 5% of a pool mapped whole
        out.append(cast(Step, {**step, **said}) if said else step)
    return out
