"""What holds the memory left at a step: the script's allocator pool, its live objects, the CUDA
runtime's own growth, or another process.

NVML's per-process reading of a cell sums every process of it. What the framework reports
(its live bytes and its allocator's reservation) covers only the script's own process; what
its other processes hold (a helper it started, a detached worker) is theirs, named from the
process list recorded at each checkpoint. What is left of the script's own memory beyond its
pool and its live bytes is runtime growth since the first touch (kernels and library handles
loaded on first use): no cleanup call returns it before exit, so it is stated, never counted
as a cleanup failure.
"""
from __future__ import annotations

from harness.common.units import human_bytes
from harness.model.processes import GpuProcess
from harness.model.record import CellRecord, Checkpoint, process_of


def launched(record: CellRecord) -> bool:
    """A launcher's command (torchrun ...), or a script whose spawned workers took checkpoints
    (mp.spawn): its ranks, and the process that started them, are all the script's."""
    return bool((record.get("scenario") or {}).get("launcher")) or any(
        cp.get("spawned") for cp in record.get("checkpoints") or [])


def judged_pid(record: CellRecord) -> int | None:
    """The process whose own readings are the script's: none for a launcher's command (the launcher
    and every process it started are judged together)."""
    return None if launched(record) else record.get("script_pid")


def ranks_by_pid(record: CellRecord) -> dict[int, int]:
    """PID -> rank, as a launcher's ranks said at their checkpoints."""
    return {pid: rank for cp in record.get("checkpoints") or []
            if (pid := process_of(cp)) is not None and (rank := cp.get("rank")) is not None}


def other_processes(cp: Checkpoint, script_pid: int | None) -> tuple[int, list[GpuProcess]]:
    """GPU memory of the cell's processes other than the script's own at ``cp``, and who they are."""
    if script_pid is None:
        return 0, []
    others = [p for p in cp.get("gpu_processes") or [] if p.get("in_cell") and p.get("pid") != script_pid]
    return sum(int(p.get("bytes") or 0) for p in others), others


def own_reading(cp: Checkpoint, script_pid: int | None) -> int | None:
    """The script's own process on per-process NVML at ``cp``: the cell's reading less its other
    processes (a helper, a detached child), which are never the script's runtime or pool."""
    value = (cp.get("readings") or {}).get("nvml_process")
    return None if value is None else int(value) - other_processes(cp, script_pid)[0]


def others_left(floor_cp: Checkpoint, cp: Checkpoint, script_pid: int | None) -> tuple[int, list[GpuProcess]]:
    """What the script's other processes hold at ``cp`` beyond what they held at the floor."""
    now, who = other_processes(cp, script_pid)
    before, _ = other_processes(floor_cp, script_pid)
    return max(0, now - before), [p for p in who if p.get("bytes")]


def named(processes: list[GpuProcess], ranks: dict[int, int] | None = None) -> str:
    """Each process with its PID (and rank), the GPU where the script sees several, and its memory."""
    def one(p: GpuProcess) -> str:
        rank = f" (rank {ranks[p['pid']]})" if ranks and p.get("pid") in ranks else ""
        where = f" on GPU {p['gpu']}" if p.get("gpu") is not None else ""
        return f"PID {p['pid']}{rank}{where} `{str(p.get('command') or '?')[:60]}` ({human_bytes(p.get('bytes'))})"
    return ", ".join(one(p) for p in processes)


def split_own(left: int, pool: int | None, live: int | None) -> dict[str, int] | None:
    """The script's own ``left`` as pool / live / runtime growth, where the framework reports its pool."""
    if pool is None:
        return None
    live = max(0, live or 0)
    pool = max(0, min(pool, left - live))  # the floor may already hold part of it (a first touch mid-script)
    return {"pool": pool, "live": live, "runtime_growth": max(0, left - pool - live)}
