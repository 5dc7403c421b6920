"""Judging a cell: what each cleanup step really did, and whether everything came back on exit.

Works on the JSON record alone, so saved results can be re-judged. For each cleanup checkpoint
the primary meter (per-process NVML, else device NVML, else host RSS: the first one that has a
value at the floor, the peak and that checkpoint) is compared with the scenario's floor
(``ready``) and peak:

  grown = peak - floor;  left = reading - floor;  tol = max(ABS_TOL, REL_TOL * grown)
  no-signal  grown < MIN_SIGNAL: the scenario never held enough to judge
  released   left <= tol
  cached     left > tol, and the framework's own count of live bytes is back to its floor
             (the allocator keeps what the framework calls free)
  held       left >= grown - tol, and the framework still counts it (or cannot say)
  partial    anything in between
  skipped    the scenario said the step means nothing here (a GPU-only step without a GPU)

A cell that ended in error / unsupported / timeout / crashed carries that status; the
checkpoints it reached are still judged. After exit: ``returned`` when the device is back to
its reading before the cell started (NVML), or when no process of the cell is left (RSS).
"""
from __future__ import annotations

from typing import Any

MiB = 1024 * 1024
ABS_TOL = 64 * MiB
REL_TOL = 0.05
MIN_SIGNAL = 128 * MiB
PRIMARY_ORDER = ("nvml_process", "nvml_device", "rss")

TOLERANCES = {
    "abs_tol_bytes": ABS_TOL,
    "rel_tol": REL_TOL,
    "min_signal_bytes": MIN_SIGNAL,
    "rule": "released: left <= max(abs_tol, rel_tol * grown); held: left >= grown - tol",
}


def tolerance(grown: int) -> float:
    return max(ABS_TOL, REL_TOL * grown)


def _reading(cp: dict[str, Any], meter: str) -> int | None:
    value = cp.get("readings", {}).get(meter)
    return int(value) if value is not None else None


def _in_use(cp: dict[str, Any]) -> int | None:
    """Live bytes by the framework's own count, summed over frameworks that say."""
    values = [v.get("in_use") for v in (cp.get("view") or {}).values() if v.get("in_use") is not None]
    return sum(values) if values else None


def roles(checkpoints: list[dict[str, Any]], cleanup: list[str] | None) -> tuple[int | None, int | None, list[int]]:
    """Indexes of the floor, the peak and the cleanup checkpoints."""
    if not checkpoints:
        return None, None, []
    labels = [cp["label"] for cp in checkpoints]
    floor = labels.index("ready") if "ready" in labels else 0
    if "peak" in labels:
        peak = labels.index("peak")
    else:  # no declared peak: the highest reading on the best meter
        meter = primary_meter(checkpoints)
        peak = max(range(len(checkpoints)), key=lambda i: _reading(checkpoints[i], meter) or 0) if meter else floor
    if cleanup is not None:
        steps = [i for i, label in enumerate(labels) if label in cleanup]
    else:
        steps = list(range(peak + 1, len(checkpoints)))
    return floor, peak, steps


def primary_meter(points: list[dict[str, Any]], prefer: str | None = None) -> str | None:
    for meter in ((prefer,) if prefer else ()) + PRIMARY_ORDER:
        if all(_reading(cp, meter) is not None for cp in points):
            return meter
    return None


def judge_step(
    floor_cp: dict[str, Any], peak_cp: dict[str, Any], cp: dict[str, Any], prefer: str | None = None
) -> dict[str, Any]:
    meter = primary_meter([floor_cp, peak_cp, cp], prefer)
    if cp.get("skipped"):
        return {"label": cp["label"], "verdict": "skipped", "meter": meter, "reason": cp["skipped"]}
    if meter is None:
        return {"label": cp["label"], "verdict": "unmeasured", "meter": None}
    floor, peak, value = (_reading(x, meter) or 0 for x in (floor_cp, peak_cp, cp))
    grown, left = peak - floor, value - floor
    tol = tolerance(grown)
    result: dict[str, Any] = {"label": cp["label"], "meter": meter, "grown": grown, "left": left, "tol": int(tol)}
    fw_floor, fw_now = _in_use(floor_cp), _in_use(cp)
    fw_left = None if fw_now is None else fw_now - (fw_floor or 0)
    result["framework_left"] = fw_left
    if grown < MIN_SIGNAL:
        verdict = "no-signal"
    elif left <= tol:
        verdict = "released"
    elif fw_left is not None and fw_left <= tol:
        verdict = "cached"
    elif left >= grown - tol:
        verdict = "held"
    else:
        verdict = "partial"
    result["verdict"] = verdict
    return result


def judge_exit(record: dict[str, Any]) -> dict[str, Any]:
    after = (record.get("after_exit") or {}).get("readings") or {}
    before = record.get("baseline") or {}
    if after.get("nvml_process") is not None and after.get("nvml_device") is not None and before.get("nvml_device") is not None:
        left = after["nvml_device"] - before["nvml_device"]
        returned = after["nvml_process"] == 0 and left <= ABS_TOL
        return {"verdict": "returned" if returned else "not-returned", "meter": "nvml_device", "left": left}
    if after.get("nvml_device") is not None and before.get("nvml_device") is not None:
        left = after["nvml_device"] - before["nvml_device"]
        return {"verdict": "returned" if left <= ABS_TOL else "not-returned", "meter": "nvml_device", "left": left}
    # Without NVML: every process of the cell is gone, so nothing of it can hold memory.
    rss = after.get("rss")
    return {"verdict": "returned" if not rss else "not-returned", "meter": "rss", "left": rss or 0}


def timeline_peak(record: dict[str, Any], checkpoints: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A user's script has no "peak" checkpoint: its peak is the timeline's maximum between the
    first and the last checkpoint (a checkpoint-like dict), or None without a timeline."""
    timeline = record.get("timeline") or {}
    samples = timeline.get("samples") or []
    if not samples or not checkpoints:
        return None
    start, end = checkpoints[0]["t"], checkpoints[-1]["t"]
    inside = [s for s in samples if start <= s[0] <= end]
    readings: dict[str, int | None] = {}
    for col, meter in enumerate(timeline.get("columns") or []):
        if meter == "t":
            continue
        values = [s[col] for s in inside if s[col] is not None]
        values += [cp["readings"][meter] for cp in checkpoints if cp["readings"].get(meter) is not None]
        readings[meter] = max(values) if values else None
    return {"label": "peak (timeline)", "readings": readings, "view": {}}


def judge(record: dict[str, Any]) -> dict[str, Any]:
    """Verdicts for a record: per cleanup step, after exit, and the cell's status."""
    checkpoints = record.get("checkpoints") or []
    scenario = record.get("scenario") or {}
    floor, peak, steps = roles(checkpoints, scenario.get("cleanup"))
    judged = []
    peak_cp = checkpoints[peak] if peak is not None else None
    if scenario.get("mode") == "repro" and checkpoints:
        # A user's script: every checkpoint after `start` is a cleanup step, judged against the
        # highest memory the timeline saw.
        floor, steps, peak_cp = 0, list(range(1, len(checkpoints))), timeline_peak(record, checkpoints) or peak_cp
    if floor is not None and peak_cp is not None:
        prefer = scenario.get("meter")
        judged = [judge_step(checkpoints[floor], peak_cp, checkpoints[i], prefer) for i in steps]
    return {
        "status": record.get("status"),
        "floor": checkpoints[floor]["label"] if floor is not None else None,
        "peak": peak_cp["label"] if peak_cp is not None else None,
        "steps": judged,
        "exit": judge_exit(record) if record.get("after_exit") else None,
        "tolerances": TOLERANCES,
    }
