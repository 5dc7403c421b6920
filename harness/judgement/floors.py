"""Readings of a checkpoint, and the floor the driver question is judged against.

The floor: the process before any framework or CUDA call (the agent's ``pre_gpu`` reading) plus
the runtime cost, what the first touch of the GPU costs and nothing gives back before exit
(verdicts.py's docstring has the whole rule).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from harness import frameworks
from harness.judgement import attribution
from harness.judgement.tolerances import NVML_METERS
from harness.model.judged import Judged
from harness.model.record import CellRecord, Checkpoint, meter_value


def reading(cp: Checkpoint, meter: str) -> int | None:
    return meter_value(cp.get("readings"), meter)


def view_sum(cp: Checkpoint, key: Literal["in_use", "reserved"]) -> int | None:
    """A figure of the framework's own view (in_use, reserved), summed over frameworks that say."""
    values = [said for v in (cp.get("view") or {}).values() if (said := v.get(key)) is not None]
    return sum(values) if values else None


def in_use(cp: Checkpoint) -> int | None:
    return view_sum(cp, "in_use")


def unused_pool(cp: Checkpoint) -> int | None:
    """What the allocator holds beyond the live bytes, or None where the framework does not say."""
    reserved = view_sum(cp, "reserved")
    if reserved is None:
        return None
    return max(0, reserved - (in_use(cp) or 0))


@dataclass(frozen=True)
class DriverFloor:
    """What the driver question is judged against, and how it was found."""

    value: int
    basis: str  # "pre-GPU + runtime", "pre-GPU (pool mapped at first touch)", "ready"
    runtime_cost: int | None = None
    first_touch: str | None = None
    premapped: bool = False

    def describe(self) -> dict[str, Any]:
        return {"driver_floor": self.value, "floor_basis": self.basis, "runtime_cost": self.runtime_cost,
                "first_touch": self.first_touch, "premapped": self.premapped}


def baseline_reading(record: CellRecord, meter: str) -> int | None:
    """The process before any scenario code: the agent's pre_gpu reading; on per-process NVML a
    record without it still has one, since a process has no GPU memory before its first CUDA call."""
    pre = record.get("pre_gpu")
    if pre is not None:
        return reading(pre, meter)
    return 0 if meter == "nvml_process" else None


def driver_floor(record: CellRecord, before_peak: list[Checkpoint], peak_cp: Checkpoint,
                 floor_cp: Checkpoint, meter: str) -> DriverFloor:
    """The floor of the driver question on ``meter`` (see the module docstring). On per-process
    NVML only the script's own process counts (its other processes are named apart). A user's
    script (repro) starts its runtime itself, wherever its first CUDA call is: the runtime is what
    its process holds there beyond the framework's whole pool (less what was live at the floor),
    since every byte the script allocated after its floor is its to give back; a scenario's live
    bytes at its first touch belong to its floor."""
    floor_reading = reading(floor_cp, meter) or 0
    base = baseline_reading(record, meter) if meter in NVML_METERS else None
    if base is None:
        return DriverFloor(value=floor_reading, basis="ready")
    pid = attribution.judged_pid(record)

    def own(cp: Checkpoint) -> int:
        value = attribution.own_reading(cp, pid) if meter == "nvml_process" else reading(cp, meter)
        return value or 0

    touched = [cp for cp in before_peak if own(cp) > base]
    if not touched:  # nothing of the GPU before the peak (work done in a child): the bare process
        return DriverFloor(value=base, basis="pre-GPU", runtime_cost=0)
    first = touched[0]
    at_first = own(first)
    pooled = unused_pool(first)
    if pooled is not None and (record.get("scenario") or {}).get("mode") == "repro":
        pooled += (in_use(first) or 0) - (in_use(floor_cp) or 0)  # the whole pool, less what lived at the floor
    if pooled is not None:
        return DriverFloor(value=at_first - pooled, basis="pre-GPU + runtime", runtime_cost=at_first - pooled - base,
                           first_touch=first["label"])
    if at_first - base > (reading(peak_cp, meter) or 0) - at_first and not _lazy_pools(record):
        return DriverFloor(value=base, basis="pre-GPU (pool mapped at first touch)", first_touch=first["label"],
                           premapped=True)
    return DriverFloor(value=at_first, basis="pre-GPU + runtime", runtime_cost=at_first - base,
                       first_touch=first["label"])


def _lazy_pools(record: CellRecord) -> bool:
    """Whether every framework the cell imported maps GPU memory only as it is asked (torch, CuPy): then a first
    touch larger than what followed is the CUDA context and libraries (torch 1.0.1's 900 MiB on Hopper, read
    without a framework count), never a pool mapped whole."""
    found = [frameworks.named(name) for name in ((record.get("facts") or {}).get("frameworks") or {})]
    known = [framework for framework in found if framework is not None]
    return bool(known) and all(framework.pool_grows_lazily for framework in known)


def blind_labels(record: CellRecord, judged: Judged) -> list[str]:
    """Labels whose NVML reading cannot show use: after the first touch of a pool mapped there."""
    if not judged.get("premapped"):
        return []
    labels = [cp["label"] for cp in record.get("checkpoints") or []]
    first = judged.get("first_touch")
    return labels[labels.index(first) + 1:] if first in labels else []
