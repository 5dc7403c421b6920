"""A scenario whose point is GPU memory, run where no GPU was measured: it does not show it there.

On a CPU, ``torch/del_no_empty_cache`` frees its tensors through the C allocator and reads
"released to the OS": the opposite of what the scenario exists to show (the CUDA caching
allocator keeps them). A GPU-only setting (JAX's preallocation, ``cuda_malloc_async``,
``set_memory_growth``) changes nothing there at all. Such a scenario declares why in its META
(``gpu_only``); a cell of it that measured no GPU answers n/a with that reason, its steps kept for
the drill-down. Records written before the key existed are read against the scenario's file.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

from harness.common.meta import literal_meta
from harness.judgement.gpu_use import measured_gpu
from harness.model.record import CellRecord

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


@functools.cache
def declared(name: str) -> str:
    """The ``gpu_only`` reason the scenario ``family/name[@variant]`` declares today, or ''."""
    path = SCENARIOS / f"{name.split('@', 1)[0]}.py"
    try:
        meta = literal_meta(ast.parse(path.read_text(encoding="utf-8")))
    except (OSError, SyntaxError, ValueError):
        return ""
    return str(meta.get("gpu_only") or "") if isinstance(meta, dict) else ""


def not_shown(record: CellRecord) -> str:
    """Why this cell's answer is n/a (the scenario is about GPU memory and no GPU was measured), or ''."""
    scenario = record.get("scenario") or {}
    if scenario.get("mode") == "repro":
        return ""
    reason = scenario.get("gpu_only") if "gpu_only" in scenario else declared(str(scenario.get("name") or ""))
    if not reason:
        return ""
    return "" if measured_gpu(record) else str(reason)
