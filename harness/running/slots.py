"""The local executor: one worker per GPU (or per CPU job), each running one cell at a time from a shared queue.

A GPU's readings belong to one cell only when that GPU runs one cell at a time. Ctrl-C stops new
cells and ends the running ones (their containers and process groups), so nothing outlives the run.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from harness.common import threads
from harness.common.errors import UsageError
from harness.definitions import config
from harness.measurement.nvml import Nvml
from harness.measurement.scenario import Scenario
from harness.model.record import CellRecord


def slots_for(gpu_indices: list[int] | None, nvml: Nvml) -> list[int | None]:
    """One worker per GPU to use (all NVML sees, or the ones asked for); none without NVML."""
    if not nvml.available:
        return []
    indices = gpu_indices if gpu_indices is not None else list(range(len(nvml.gpus)))
    for index in indices:
        if index >= len(nvml.gpus):
            raise UsageError(f"--gpus {index}: this host has {len(nvml.gpus)} GPU(s) (indices 0..{len(nvml.gpus) - 1})")
    return list(indices)


def script_slots(slots: list[int | None], items: list[Scenario]) -> tuple[list[int | None], tuple[int, ...]]:
    """The slots a run's cells take, and the GPUs among them. A bug report's script sees every GPU it
    is given, as it would bare, so a repro run on several GPUs runs one cell at a time holding them all."""
    gpus = tuple(s for s in slots if s is not None)
    if len(gpus) > 1 and items and all(item.mode == "repro" for item in items):
        return [gpus[0]], gpus
    return slots, gpus


def script_gpus(gpus: tuple[int, ...], nvml: Nvml) -> dict[str, Any]:
    """A script's cell options: the GPUs it sees (all of the host's: nothing pinned); none on one GPU."""
    if len(gpus) < 2:
        return {}
    return {"gpu_indices": gpus, "all_gpus": set(gpus) == set(range(len(nvml.gpus)))}


def run_on_slots(
    cells: list[tuple[config.EnvDef, Scenario]],
    slots: list[int | None],
    one: Callable[[config.EnvDef, Scenario, int | None], CellRecord],
    interrupted: threading.Event | None = None,
) -> list[CellRecord]:
    """Each slot (a GPU, or a CPU job) runs one cell at a time from a shared queue."""
    from harness.measurement.backends.base import closing
    from harness.measurement.backends.owned_containers import remove_live_containers
    from harness.measurement.backends.process import stop_live_processes

    done: list[CellRecord] = []

    def stop_cells(wait_for_workers: Callable[[float], None]) -> None:
        # Ctrl-C / SIGTERM: no new cell starts; running cells are ended now. ``interrupted`` is set
        # first, so a cell cut by this is not recorded as its own failure (--resume runs it again).
        if interrupted is not None:
            interrupted.set()
        closing.set()  # a start already in flight ends itself (see backends.base)
        try:
            remove_live_containers()
            stop_live_processes()
            wait_for_workers(10)
            remove_live_containers()  # any whose start was in flight above
            stop_live_processes()
        finally:
            closing.clear()

    threads.run_on(slots, cells, lambda cell, slot: done.append(one(*cell, slot)), stop_cells)
    return done
