"""Judging a cell: what each cleanup step really did, and whether everything came back on exit.

Works on the JSON record alone, so saved results can be re-judged. Each cleanup checkpoint
answers two questions, on the primary meter (per-process NVML, else device NVML, else host RSS:
the first one with a value at the floor, the peak and that checkpoint):

* Did the framework release it? Its own count of live bytes (the ``view``) against its count
  at the floor (``ready``).
* Did the driver get it back? The meter against the **driver floor**: the process before any
  framework or CUDA call (the agent's ``pre_gpu`` reading; 0 on per-process NVML) plus the
  **runtime cost**, what the first touch of the GPU costs (CUDA context, libraries, workspaces)
  and nothing gives back before exit. The runtime cost is the reading at the first checkpoint
  that holds GPU memory, less what the framework's allocator keeps there unused (its reserved
  minus its live bytes). A framework that does not report its allocator (TensorFlow) and took
  more at the first touch than the scenario added afterwards has mapped its pool there: the
  runtime cost cannot be told from the pool, so the driver floor is the pre-GPU reading and
  what is left includes the runtime (``runtime_cost`` is None, ``premapped`` True).
  Host RSS keeps ``ready`` as its floor: imports alone move it.

  grown = peak - floor;  left = reading - floor;  tol = max(abs_tol[meter], REL_TOL * grown)
  no-signal  grown < min_signal[meter] and the framework's own growth too; "no signal: ... borderline"
             (its word, with the figures) when grown is within the meter's noise of min_signal either
             side (a run just over would judge it); a "borderline" partial when, without a framework
             count, left is within it of tol (released on one run, partly held on the next: partial on both)
  released   left <= tol; or the framework's live bytes are back to its floor and its pool
             (where it reports one) is empty: what is left is the runtime's growth since the
             first touch (attribution.py), stated beside the verdict
  cached     left > tol, and the framework's live bytes are back to its floor
             (its allocator keeps what the framework calls free); on a script's timeline peak,
             where the framework says nothing, a pool outweighing the live bytes
  held       the framework still counts it, or (when it cannot say) left >= grown - tol
  partial    anything in between
  skipped    the scenario said the step means nothing here (a GPU-only step without a GPU)

On per-process NVML, what the script's other processes hold (a helper it started) is taken out
of ``left`` and named apart (attribution.py). The smallest change judged is set per meter
(METER_RULES): NVML's per-process reading is exact to a few MiB, the device reading includes
other processes, RSS moves with the interpreter.
A cell that ended in error / unsupported / timeout / crashed carries that status; the
checkpoints it reached are still judged. A cell that had the GPU but whose framework registered
no GPU device (gpu_use.py) is judged unsupported, with the reason: its GPU readings are not the
framework's memory. After exit: ``returned`` when the device is back to
its reading before the cell started (NVML), or when no process of the cell is left (RSS).
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import cast

from harness.common.units import human_bytes
from harness.judgement import attribution, failures, gpu_only, leftover, named_live, ranks, sentences, since
from harness.judgement.floors import DriverFloor, driver_floor, in_use, reading, unused_pool
from harness.judgement.gpu_use import framework_without_gpu, needs_a_gpu
from harness.judgement.rules import RULES_VERSION
from harness.judgement.tolerances import (
    ABS_TOL,
    FRAMEWORK_RULE,
    METER_RULES,
    NVML_METERS,
    PRIMARY_ORDER,
    REL_TOL,
    TOLERANCES,
    borderline,
    tolerance,
)
from harness.model.judged import ExitVerdict, Judged, Step
from harness.model.readings import Readings
from harness.model.record import CellRecord, Checkpoint, Status, meter_value


def roles(checkpoints: list[Checkpoint], cleanup: list[str] | None) -> tuple[int | None, int | None, list[int]]:
    """Indexes of the floor, the peak and the cleanup checkpoints."""
    if not checkpoints:
        return None, None, []
    labels = [cp["label"] for cp in checkpoints]
    floor = labels.index("ready") if "ready" in labels else 0
    if "peak" in labels:
        peak = labels.index("peak")
    else:  # no declared peak: the highest reading on the best meter
        meter = primary_meter(checkpoints)
        peak = max(range(len(checkpoints)), key=lambda i: reading(checkpoints[i], meter) or 0) if meter else floor
    if cleanup is not None:
        steps = [i for i, label in enumerate(labels) if label in cleanup]
    else:
        steps = list(range(peak + 1, len(checkpoints)))
    return floor, peak, steps


def primary_meter(points: list[Checkpoint], prefer: str | None = None) -> str | None:
    for meter in ((prefer,) if prefer else ()) + PRIMARY_ORDER:
        if all(reading(cp, meter) is not None for cp in points):
            return meter
    return None


def measured_meter(record: CellRecord) -> str:
    """The meter a record's own numbers are read on (bisect criteria, repro peaks and loops):
    per-process NVML when it saw the cell's checkpoints, else RSS."""
    cps = record.get("checkpoints") or []
    return "nvml_process" if any(reading(cp, "nvml_process") is not None for cp in cps) else "rss"


def judge_step(
    floor_cp: Checkpoint, peak_cp: Checkpoint, cp: Checkpoint, prefer: str | None = None,
    floors: dict[str, DriverFloor] | None = None, script_pid: int | None = None,
) -> Step:
    meter = primary_meter([floor_cp, peak_cp, cp], prefer)
    floor = (floors or {}).get(meter or "")
    if cp.get("skipped"):
        return {"label": cp["label"], "verdict": "skipped", "meter": meter, "reason": str(cp["skipped"]),
                "word": f"n/a: {cp['skipped']}"}
    if meter is None:
        return {"label": cp["label"], "verdict": "unmeasured", "meter": None}
    base = floor.value if floor is not None else (reading(floor_cp, meter) or 0)
    peak, value = (reading(x, meter) or 0 for x in (peak_cp, cp))
    grown, left = peak - base, value - base
    elsewhere, others = attribution.others_left(floor_cp, cp, script_pid) if meter == "nvml_process" else (0, [])
    grown, left = max(0, grown - elsewhere), left - elsewhere  # the script's own; its other processes' named apart
    if floor is not None and floor.runtime_cost and left < 0:
        # Below the floor: the runtime is not there yet (a step before the first touch) or gave some
        # back (NCCL's, at destroy_process_group). What the framework still holds (live and pooled,
        # beyond its floor) is still left; the runtime keeps the rest of what the process holds now.
        above_pre = left + floor.runtime_cost
        pooled, live = unused_pool(cp), in_use(cp)
        kept = max(0, (pooled or 0) + (live or 0) - (in_use(floor_cp) or 0)) if pooled is not None else 0
        runtime_now = max(0, above_pre - kept)
        floor = replace(floor, runtime_cost=runtime_now)
        left = above_pre - runtime_now
    tol = tolerance(grown, meter)
    result: Step = {"label": cp["label"], "verdict": "", "meter": meter, "grown": grown, "left": left, "tol": int(tol)}
    fw_floor, fw_peak, fw_now = in_use(floor_cp) or 0, in_use(peak_cp), in_use(cp)
    fw_left = None if fw_now is None else fw_now - fw_floor
    fw_grown = None if fw_peak is None else fw_peak - fw_floor
    fw_tol = max(FRAMEWORK_RULE.abs_tol, REL_TOL * (fw_grown or 0))
    result["framework_left"], result["framework_grown"] = fw_left, fw_grown
    fw_signal = fw_grown is not None and fw_grown >= FRAMEWORK_RULE.min_signal
    gpu_pool = unused_pool(cp) if meter in NVML_METERS else None  # the framework's pool is GPU memory
    if borderline(grown, meter) and not fw_signal:
        verdict = "no-signal"  # either side of the floor run to run: no signal first, as below it, on every run
        result["word"] = (f"no signal: {human_bytes(grown)} grown, borderline with the "
                          f"{human_bytes(METER_RULES[meter].min_signal)} floor")
    elif grown < METER_RULES[meter].min_signal and not fw_signal:
        verdict = "no-signal"
    elif left <= tol:
        verdict = "released"
    elif fw_left is not None and fw_left <= fw_tol:
        # where the framework reports its pool: nothing in it means what is left is runtime growth
        verdict = "released" if gpu_pool is not None and gpu_pool <= tol else "cached"
    elif fw_grown is None and fw_left is not None and (gpu_pool or 0) > fw_left:
        verdict = "cached"  # a script's peak has no framework view: the pool outweighs the live bytes
    elif fw_left is not None and fw_grown is not None and fw_grown > fw_tol:
        verdict = "held" if fw_left >= fw_grown - fw_tol else "partial"
    elif left >= grown - tol:
        verdict = "held"
    else:
        verdict = "partial"
    if verdict in ("released", "partial") and fw_left is None and abs(left - tol) < METER_RULES[meter].release_band:
        # what is left sits within the meter's noise of the release line, with no framework count to
        # decide: one run reads it released, the next partly held. Not all of it can be said to be
        # back: partial on every run, and the word says how close it is
        verdict = "partial"
        result["word"] = (f"borderline: {human_bytes(left)} left of {human_bytes(grown)} grown, released at or under "
                          f"{human_bytes(tol)}")
    result["verdict"] = verdict
    parts = attribution.split_own(left, gpu_pool, fw_left) if left > tol else None
    if parts:
        result["pool"], result["live"], result["runtime_growth"] = parts["pool"], parts["live"], parts["runtime_growth"]
    if elsewhere > tol:
        result["elsewhere"], result["elsewhere_processes"] = elsewhere, others
    result["detail"] = ("" if "word" in result else  # a borderline step's word holds its figures
                        sentences.detail(verdict, left, fw_now, floor, cp, parts, result.get("elsewhere_processes"), meter))
    return result


def judge_exit(record: CellRecord) -> ExitVerdict:
    after = (record.get("after_exit") or {}).get("readings") or {}
    device_after, device_before = after.get("nvml_device"), (record.get("baseline") or {}).get("nvml_device")
    process_after = after.get("nvml_process")
    if process_after is not None and device_after is not None and device_before is not None:
        left = device_after - device_before
        returned = process_after == 0 and left <= ABS_TOL
        return {"verdict": "returned" if returned else "not-returned", "meter": "nvml_device", "left": left}
    if device_after is not None and device_before is not None:
        left = device_after - device_before
        return {"verdict": "returned" if left <= ABS_TOL else "not-returned", "meter": "nvml_device", "left": left}
    # Without NVML: every process of the cell is gone, so nothing of it can hold memory.
    rss = after.get("rss")
    return {"verdict": "returned" if not rss else "not-returned", "meter": "rss", "left": rss or 0}


TIMELINE_PEAK = "peak (timeline)"
# agent/instrument.py: after a framework import, in a script (`train.py:3: import torch`) or a notebook's cell
# (`cell 1, line 2: import torch`): the floor, never a step
IMPORT_LABEL = re.compile(r"^(?:[^:,]+:\d+|cell \d+, line \d+): (?:import|from) ")


def timeline_peak(record: CellRecord, checkpoints: list[Checkpoint]) -> Checkpoint | None:
    """A user's script has no "peak" checkpoint: its peak is the timeline's maximum between the
    first and the last checkpoint (a checkpoint-like dict), or None without a timeline."""
    timeline = record.get("timeline") or {}
    samples = timeline.get("samples") or []
    if not samples or not checkpoints:
        return None
    start, end = checkpoints[0].get("t") or 0.0, checkpoints[-1].get("t") or 0.0
    inside = [s for s in samples if start <= (s[0] or 0.0) <= end]
    readings: dict[str, int | None] = {}
    for col, meter in enumerate(timeline.get("columns") or []):
        if meter == "t":
            continue
        values = [int(v) for s in inside if (v := s[col]) is not None]
        values += [v for cp in checkpoints if (v := meter_value(cp.get("readings"), meter)) is not None]
        values += high_water_marks(checkpoints) if meter == "rss" else []
        readings[meter] = max(values) if values else None
    return {"label": TIMELINE_PEAK, "readings": cast(Readings, readings), "view": {}}


def high_water_marks(checkpoints: list[Checkpoint]) -> list[int]:
    """The kernel's high-water marks of the script's process (VmHWM) that rose after the first checkpoint:
    host peaks it reached since, however brief (between two timeline samples), never above the true one."""
    marks = [meter_value(cp.get("readings"), "rss_peak") for cp in checkpoints]
    return [v for v in marks[1:] if v is not None and marks[0] is not None and v > marks[0]]


def judge(record: CellRecord) -> Judged:
    """Verdicts for a record: per cleanup step, after exit, and the cell's status."""
    checkpoints = record.get("checkpoints") or []
    scenario = record.get("scenario") or {}
    floor, peak, steps = roles(checkpoints, scenario.get("cleanup"))
    judged = []
    peak_cp = checkpoints[peak] if peak is not None else None
    if scenario.get("mode") == "repro" and checkpoints:
        # A user's script: every checkpoint after `start` is a cleanup step, judged against the
        # highest memory the timeline saw; its framework imports set the floor (host memory holds
        # the framework from then on: not the script's to give back).
        imports = [i for i, cp in enumerate(checkpoints) if IMPORT_LABEL.match(cp["label"])]
        steps = [i for i in range(1, len(checkpoints)) if i not in imports]
        floor = max([i for i in imports if not steps or i < steps[0]], default=0)
        peak_cp = timeline_peak(record, checkpoints) or peak_cp
    floors: dict[str, DriverFloor] = {}
    if floor is not None and peak_cp is not None:
        prefer = scenario.get("meter")
        # Where the first touch may be: before the peak (a user's script: anywhere before its end).
        before_peak = checkpoints if peak_cp.get("label") == TIMELINE_PEAK or peak is None else checkpoints[:peak]
        floors = {meter: driver_floor(record, before_peak, peak_cp, checkpoints[floor], meter)
                  for meter in NVML_METERS if primary_meter([checkpoints[floor], peak_cp], meter) == meter}
        judged = [judge_step(checkpoints[floor], peak_cp, checkpoints[i], prefer, floors, attribution.judged_pid(record))
                  for i in steps]
    judged = named_live.at_steps(record, leftover.at_end(record, judged))
    meters = [meter for s in judged if (meter := s.get("meter")) is not None and meter in floors]
    judged = gpu_only.steps_not_shown(record, [gpu_only.step_not_shown(record, step)
                                               for step in _ranks_alone(record, judged)])
    no_gpu = since.predates(record) or failures.cupy_compiled_for_older_gpu(record) or (
        framework_without_gpu(record) if record.get("status") == Status.OK
        else needs_a_gpu(record) or failures.no_code_for_gpu(record) or failures.import_failed(record)
        or failures.child_warmup_failed(record))
    ours = failures.harness_gave_up(record) or failures.aliased_crash(record)
    return cast(Judged, {  # spread where a key is said only when it applies
        "rules_version": RULES_VERSION,
        "status": "unsupported" if no_gpu else Status.HARNESS_ERROR.value if ours else record.get("status"),
        **({"unsupported_reason": no_gpu} if no_gpu else {}),
        **({"harness_reason": ours} if ours else {}),
        **({"gpu_only": not_shown} if (not_shown := gpu_only.not_shown(record)) else {}),
        "floor": checkpoints[floor]["label"] if floor is not None else None,
        "peak": peak_cp["label"] if peak_cp is not None else None,
        **(floors[meters[0]].describe() if meters else {}),
        "steps": judged,
        "exit": judge_exit(record) if record.get("after_exit") else None,
        "tolerances": TOLERANCES,
    })


def _ranks_alone(record: CellRecord, judged: list[Step]) -> list[Step]:
    """A launched job's rank steps judged per rank (ranks.py): each on its own process and GPU,
    against its own floor; the launcher's own steps stay judged on the job."""
    views = ranks.rank_views(record)
    if not views:
        return judged
    alone: dict[str, Step] = {}
    for prefix, view in views:
        for step in judge(view)["steps"]:
            marked = step.copy()
            marked["label"], marked["judged_alone"] = prefix + step["label"], True
            alone[marked["label"]] = marked
    # A rank's start and its imports are its floor, as a bare script's are: no step of the job.
    return [alone.get(step["label"], step) for step in judged
            if step["label"] in alone or not ranks.RANK_PREFIX.match(step["label"])]
