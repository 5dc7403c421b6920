"""A scenario whose point is GPU memory, or a script's GPU-only line, run where no GPU was measured:
it does not show it there.

On a CPU, ``torch/del_no_empty_cache`` frees its tensors through the C allocator and reads
"released to the OS": the opposite of what the scenario exists to show (the CUDA caching
allocator keeps them). A GPU-only setting (JAX's preallocation, ``cuda_malloc_async``,
``set_memory_growth``) changes nothing there at all. Such a scenario declares why in its META
(``gpu_only``); a cell of it that measured no GPU answers n/a with that reason, and so does each
of its steps (its readings kept for the drill-down, no verdict on them). Records written before the
key existed are read against the scenario's file. A user's script's line that returns only GPU
memory (``torch.cuda.empty_cache()``) is a step that means nothing there: n/a, with why, never
"released to the OS".
"""
from __future__ import annotations

import re

from harness.common.meta import scenario_meta
from harness.judgement.gpu_use import measured_gpu
from harness.model.judged import Step
from harness.model.record import CellRecord


def declared(name: str) -> str:
    """The ``gpu_only`` reason the scenario ``family/name[@variant]`` declares today, or ''."""
    return str(scenario_meta(name).get("gpu_only") or "")


def not_shown(record: CellRecord) -> str:
    """Why this cell's answer is n/a (the scenario is about GPU memory and no GPU was measured), or ''."""
    scenario = record.get("scenario") or {}
    if scenario.get("mode") == "repro":
        return ""
    reason = scenario.get("gpu_only") if "gpu_only" in scenario else declared(str(scenario.get("name") or ""))
    if not reason or not record.get("host"):
        return ""  # no reason, or the cell never ran (its environment was not built): nothing was measured
    return "" if measured_gpu(record) else str(reason)


def steps_not_shown(record: CellRecord, steps: list[Step]) -> list[Step]:
    """Each step of a cell that shows nothing without a GPU, where none was measured: n/a with why, its readings
    kept (what RSS did there is no answer to the scenario's question, so no verdict is written for it)."""
    reason = not_shown(record)
    if not reason:
        return steps
    why = f"no GPU measured here: {reason}"
    return [step if step.get("verdict") == "skipped" else
            {**step, "verdict": "skipped", "reason": why, "word": f"n/a: {why}", "detail": None} for step in steps]


# Lines that give back GPU memory only (the device pool of torch, CuPy), as repro labels them.
GPU_ONLY_LINE = re.compile(r":\d+: .*\b(cuda\.empty_cache|cuda\.ipc_collect|cuda\.reset_peak_memory_stats|"
                           r"free_all_blocks)\(")


def step_not_shown(record: CellRecord, step: Step) -> Step:
    """A script's GPU-only line measured without a GPU: n/a (skipped) with why; any other step as it is."""
    if (record.get("scenario") or {}).get("mode") != "repro" or measured_gpu(record):
        return step
    found = GPU_ONLY_LINE.search(str(step.get("label") or ""))
    if not found or step.get("verdict") in ("skipped", None):
        return step
    reason = f"no GPU measured here: `{found.group(1)}()` gives back only GPU memory (host memory was measured)"
    return {"label": step["label"], "verdict": "skipped", "meter": step.get("meter"), "reason": reason,
            "word": f"n/a: {reason}"}
