"""Peaks the 100 Hz timeline saw between a record's checkpoints: memory a script used and gave back between
two of its lines, which no checkpoint reading shows (repro.md puts each in its table, where it happened). On the
host a peak too brief for the timeline still shows: the kernel's high-water mark rose between the two lines."""
from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from harness.judgement import tolerances, verdicts
from harness.model.record import TIMELINE_COLUMNS, CellRecord, Checkpoint, meter_value


class Peak(TypedDict):
    """A timeline peak between two checkpoints (``before`` None: after the last), ``t_s`` into the run."""

    after: str
    before: str | None
    t_s: float | None  # None: seen by the host's high-water mark only, not by a sample
    readings: dict[str, Any]  # each timeline column's value at the peak


def peaks_between(record: CellRecord) -> dict[int, Peak]:
    """Peaks the 100 Hz timeline saw between checkpoints (and after the last) that exceed both
    ends by more than the meter's smallest judged change: checkpoint index -> the peak before it
    (index len(checkpoints): after the last one). Each: {"after", "before", "t_s", "readings"}."""
    cps = record.get("checkpoints") or []
    samples: list[list[Any]] = (record.get("timeline") or {}).get("samples") or []  # [t, meter...]: numbers, None unread
    if not cps:
        return {}
    meter = verdicts.measured_meter(record)
    column = TIMELINE_COLUMNS.index(meter)
    origin = float((record.get("pre_gpu") or cps[0]).get("t") or 0.0)
    edges = [float(cp.get("t") or 0.0) for cp in cps] + [float("inf")]
    found: dict[int, Peak] = {}
    for i in range(1, len(edges)):
        inside = [row for row in samples if edges[i - 1] < float(row[0]) < edges[i] and row[column] is not None]
        if not inside:
            continue
        top = max(inside, key=lambda row: row[column])
        ends = [meter_value(cps[j].get("readings"), meter) for j in (i - 1, i) if j < len(cps)]
        highest_end = max((v for v in ends if v is not None), default=0)
        if top[column] - highest_end > tolerances.METER_RULES[meter].min_signal:
            found[i] = {"after": cps[i - 1]["label"], "before": cps[i]["label"] if i < len(cps) else None,
                        "t_s": round(float(top[0]) - origin, 2),
                        "readings": dict(zip(TIMELINE_COLUMNS[1:], top[1:], strict=True))}
    return _high_water(cps, found) if meter == "rss" else found


def _high_water(cps: list[Checkpoint], found: dict[int, Peak]) -> dict[int, Peak]:
    """Where the script's high-water mark (VmHWM) rose between two checkpoints above both ends, and above
    what the timeline sampled there, by more than RSS's smallest judged change: that peak, without a time."""
    marks = [meter_value(cp.get("readings"), "rss_peak") for cp in cps]
    least = tolerances.METER_RULES["rss"].min_signal
    for i in range(1, len(cps)):
        mark, before = marks[i], marks[i - 1]
        if mark is None or before is None or mark <= before:
            continue
        ends = [v for cp in cps[i - 1:i + 1] if (v := meter_value(cp.get("readings"), "rss")) is not None]
        sampled = found[i]["readings"].get("rss") or 0 if i in found else 0
        if mark - max(ends, default=0) > least and mark - sampled > least:
            found[i] = {"after": cps[i - 1]["label"], "before": cps[i]["label"], "t_s": None, "readings": {"rss": mark}}
    return found
