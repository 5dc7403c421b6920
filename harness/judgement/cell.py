"""The judge's whole answer for one cell: its steps as matrix.json keeps them, the readings the pages draw, how a
loop grew, what several GPUs or the way it ran add, and the answer every output shows. Every consumer (matrix.json,
repro, sweeps, the atlas, the CLI) asks here; none makes a cell's answer of its own."""
from __future__ import annotations

from pathlib import Path
from typing import cast

from harness.judgement import answer, failures, floors, loops, multigpu, tolerances, verdicts
from harness.model.judged import CellSummary, Step
from harness.model.processes import KilledProcess
from harness.model.record import CellRecord, meter_value
from harness.store.results import read_records


def _levels(record: CellRecord) -> tuple[str | None, dict[str, int]]:
    """The cell's primary meter and each checkpoint's reading above the process's own start on it
    (the pre-GPU reading on NVML, ``ready`` on RSS, which imports alone move)."""
    checkpoints = [cp for cp in record.get("checkpoints") or [] if not cp.get("skipped")]
    meter = verdicts.primary_meter(checkpoints, (record.get("scenario") or {}).get("meter"))
    floor, _, _ = verdicts.roles(checkpoints, (record.get("scenario") or {}).get("cleanup"))
    if meter is None or floor is None:
        return meter, {}
    base = floors.baseline_reading(record, meter) if meter in tolerances.NVML_METERS else None
    if base is None:
        base = meter_value(checkpoints[floor].get("readings"), meter) or 0  # the meter reads at every checkpoint
    return meter, {cp["label"]: (meter_value(cp.get("readings"), meter) or 0) - base for cp in checkpoints}


def _framework_levels(record: CellRecord) -> tuple[dict[str, int], dict[str, int]]:
    """The framework's own count at each checkpoint, above its count at the floor: its peak so far where it keeps
    one, as TF does, and what is in use there (what a claim about the framework's use compares)."""
    checkpoints = record.get("checkpoints") or []
    floor, _, _ = verdicts.roles(checkpoints, (record.get("scenario") or {}).get("cleanup"))
    if floor is None:
        return {}, {}
    base = sum(v.get("in_use") or 0 for v in (checkpoints[floor].get("view") or {}).values())
    levels, in_use = {}, {}
    for cp in checkpoints:
        views = [v for v in (cp.get("view") or {}).values() if v.get("in_use") is not None]
        if views:
            levels[cp["label"]] = sum(max(v.get("peak") or 0, v.get("in_use") or 0) for v in views) - base
            in_use[cp["label"]] = sum(v.get("in_use") or 0 for v in views) - base
    return levels, in_use


def summary_step(step: Step) -> Step:
    """A judged step as matrix.json keeps it: the same keys on every step (None where the judge wrote none), and
    the judge's word where it gave one."""
    kept: Step = {"label": step["label"], "verdict": step["verdict"], "meter": step.get("meter"), "left": step.get("left"),
                  "grown": step.get("grown"), "tol": step.get("tol"), "reason": step.get("reason"),
                  "framework_left": step.get("framework_left"), "detail": step.get("detail"), "pool": step.get("pool"),
                  "live": step.get("live"), "runtime_growth": step.get("runtime_growth"), "elsewhere": step.get("elsewhere")}
    if step.get("word"):
        kept["word"] = step["word"]
    for key in ("heap", "garbage", "named"):  # only where the agent told them apart (rules 24-26)
        if step.get(key):
            kept[key] = step[key]
    return kept


def judge_cell(record: CellRecord) -> CellSummary:
    """A cell as every output shows it: the record judged by today's rules (its ``verdicts`` where they are already
    today's), the readings each page draws, and the answer (answer.py) with its colour and words."""
    judged = record.get("verdicts") or verdicts.judge(record)
    error = record.get("error")
    meter, levels = _levels(record)
    framework, in_use = _framework_levels(record)
    summary: CellSummary = {
        "status": judged.get("status") or record.get("status"),
        "meter": meter,
        "levels": levels,
        "framework_levels": framework,
        "blind_labels": floors.blind_labels(record, judged),
        "runtime_cost": judged.get("runtime_cost"),
        "floor_basis": judged.get("floor_basis"),
        "exit_meter": (judged.get("exit") or {}).get("meter"),
        "steps": [summary_step(s) for s in judged["steps"]],
        "exit": (judged.get("exit") or {}).get("verdict"),
        "error": judged.get("unsupported_reason") or judged.get("harness_reason") or answer.error_line(error) or None,
        "framework": record.get("facts", {}).get("frameworks", {}),
        "python": record.get("facts", {}).get("python"),
        "killed": [cast(KilledProcess, {k: p.get(k) for k in ("pid", "role", "command", "rss", "gpu")})
                   for p in record.get("killed") or []],
        "duration_s": record.get("duration_s"), "loop": loops.summary(record, verdicts.measured_meter(record), judged),
    }
    if judged.get("gpu_only"):  # a scenario about GPU memory measured without a GPU: n/a, and why
        summary["gpu_only"] = judged["gpu_only"]
    if found := multigpu.short_findings(record):
        summary["multigpu"] = found
    if said := failures.caveats(record):  # how it ran, said beside its answer
        summary["caveats"] = said
    if in_use != framework:  # a count that keeps its peak (TF): what is in use, where it differs
        summary["framework_in_use"] = in_use
    summary["glance"] = answer.of_cell(summary).as_dict()
    return summary


def judge_unrun(status: str, error: str | None = None) -> CellSummary:
    """A planned cell with no readable record (missing, unreadable): its status, and the judge's answer to that."""
    cell: CellSummary = {"status": status, "steps": [], "exit": None}
    if error:
        cell["error"] = error
    cell["glance"] = answer.of_cell(cell).as_dict()
    return cell


def read_judged(run_dir: Path) -> tuple[list[CellRecord], list[tuple[Path, str]]]:
    """The run's records, each re-judged once by today's rules (a record keeps readings), in memory
    only: a record on disk keeps the verdicts it was written with (their ``rules_version`` says by
    which rules), so re-rendering a committed run changes none of its records."""
    records, broken = read_records(run_dir)
    for record in records:
        record["verdicts"] = verdicts.judge(record)
    return records, broken
