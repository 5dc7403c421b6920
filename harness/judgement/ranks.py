"""A launcher's ranks, each judged as the script it is: its own checkpoints, its own process on its own GPU.

A launched job's readings add up the launcher and every rank on every GPU. Judged as one, a
rank's step would carry the other rank's memory, or a context it made on another GPU, as what
its cleanup left ("518 MiB more than at the first touch is the runtime's own" for a stray context
on GPU 0). Here each rank gets a view of the record as if it had run alone: its checkpoints
(labels without the ``rank N:`` prefix, so its imports set its floor as a bare script's do), its
process's bytes on its home GPU (the GPU it holds the most on), that GPU's device reading, and
the pre-GPU reading of that GPU. What it holds on another GPU is said apart (multigpu.py).
"""
from __future__ import annotations

import re

from harness.judgement import attribution
from harness.model.readings import Readings
from harness.model.record import TIMELINE_COLUMNS, CellRecord, Checkpoint, Timeline, meter_value, process_of

RANK_PREFIX = re.compile(r"^(?:rank|worker) (\d+): ")  # a launcher's rank, a spawned worker


def held_by_gpu(record: CellRecord) -> dict[int, dict[int, tuple[int, str]]]:
    """PID -> GPU -> (the most it held there, when: "at `checkpoint`", or "at its peak, N s into the
    run" where the timeline saw more between checkpoints), for the cell's processes on per-process
    NVML. The timeline's part covers processes that reach no checkpoint (``mp.spawn``'s workers)."""
    most: dict[int, dict[int, tuple[int, str]]] = {}
    for cp in record.get("checkpoints") or []:
        for p in cp.get("gpu_processes") or []:
            index, used = p.get("gpu"), p.get("bytes")
            if not p.get("in_cell") or index is None or not used:
                continue
            seen = most.setdefault(p["pid"], {})
            if used > seen.get(index, (0, ""))[0]:
                seen[index] = (used, f"at `{cp['label']}`")
    timeline, start = record.get("timeline") or {}, timeline_start(record)
    several = len((record.get("host") or {}).get("gpu_indices") or []) > 1
    for span in timeline.get("processes") or [] if several else []:
        for gpu, peak in (span.get("gpus") or {}).items():
            seen = most.setdefault(span["pid"], {})
            if peak["peak"] > seen.get(int(gpu), (0, ""))[0]:
                into = f", {peak['peak_t'] - start:.1f} s into the run" if start is not None else ""
                seen[int(gpu)] = (peak["peak"], f"at its peak{into}")
    return most


def timeline_start(record: CellRecord) -> float | None:
    """When the cell's timeline began (its first sample, epoch s), or None without one."""
    samples = (record.get("timeline") or {}).get("samples") or []
    return next((float(s[0]) for s in samples if s and s[0] is not None), None)


def home_gpus(held: dict[int, dict[int, tuple[int, str]]]) -> dict[int, int]:
    """PID -> the GPU it used most (of ``held``, held_by_gpu's answer): its own."""
    return {pid: max(by_gpu, key=lambda g: by_gpu[g][0]) for pid, by_gpu in held.items()}


def held_on(cp: Checkpoint, pid: int, gpu: int | None) -> int:
    """What process ``pid`` holds on GPU ``gpu`` at ``cp`` (per-process NVML)."""
    return sum(int(p.get("bytes") or 0) for p in cp.get("gpu_processes") or [] if p.get("pid") == pid and p.get("gpu") == gpu)


def _own(cp: Checkpoint, pid: int, gpu: int | None) -> Checkpoint:
    """A checkpoint as the rank alone on its GPU would have read it."""
    mine = [p for p in cp.get("gpu_processes") or [] if p.get("pid") == pid and p.get("gpu") == gpu]
    readings: Readings = {**(cp.get("readings") or {})}
    if readings.get("nvml_process") is not None:
        readings["nvml_process"] = held_on(cp, pid, gpu)
    readings["nvml_device"] = ((cp.get("per_gpu") or {}).get(str(gpu)) or {}).get("nvml_device")
    readings.pop("nvml_reserved", None)
    return {**cp, "label": RANK_PREFIX.sub("", cp["label"]), "readings": readings, "gpu_processes": mine,
            "spawned": None}  # the rank alone: no longer one of a job's processes


def rank_views(record: CellRecord) -> list[tuple[str, CellRecord]]:
    """For each rank of a launched record: (its label prefix, the record as that rank alone would
    have made it). Empty for any other record."""
    if not attribution.launched(record):
        return []
    homes = home_gpus(held_by_gpu(record))
    pre = record.get("pre_gpu")
    views = []
    prefixes = {pid: match.group(0) for cp in record.get("checkpoints") or []
                if (pid := process_of(cp)) is not None and (match := RANK_PREFIX.match(cp["label"]))}
    for pid, prefix in sorted(prefixes.items(), key=lambda item: (item[1].split()[0], int(item[1].split()[1][:-1]))):
        gpu = homes.get(pid)
        mine = [_own(cp, pid, gpu) for cp in record.get("checkpoints") or [] if process_of(cp) == pid]
        # Its timeline: its own checkpoints (the sampled one adds up the whole job).
        timeline: Timeline = {"columns": TIMELINE_COLUMNS,
                              "samples": [[cp.get("t"), *(meter_value(cp.get("readings"), m) for m in TIMELINE_COLUMNS[1:])]
                                          for cp in mine]}
        view: CellRecord = {**record, "script_pid": pid, "timeline": timeline, "after_exit": None,
                "scenario": {**(record.get("scenario") or {}), "launcher": False}, "checkpoints": mine,
                "pre_gpu": _own(pre, pid, gpu) if pre is not None else None}
        views.append((prefix, view))
    return views
