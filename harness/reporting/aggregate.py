"""The compatibility matrix of a run: scenario x environment -> what really happened.

Reads only the cell records (results.read_records), so a partial, resumed or merged run renders
the same way; a planned cell without a record is ``missing``. Writes matrix.json, matrix.md and
report.html (report_html.py), and compares two runs.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import cast

from harness.judgement import answer, claims, failures, floors, loops, multigpu, rules, tolerances, verdicts
from harness.model.judged import CellSummary, ChangedCell, Compare, Judged, MatrixDoc, Step, SweepSummary
from harness.model.processes import KilledProcess
from harness.model.record import SCHEMA_VERSION, CellRecord, Status, meter_value
from harness.reporting import glance, machines, matrix_md, pairing, sweeps
from harness.store.results import read_manifest, read_records, write_json, write_text

MATRIX_SCHEMA_VERSION = 1


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


def _blind_labels(record: CellRecord, judged: Judged) -> list[str]:
    """Labels whose NVML reading cannot show use: after the first touch of a pool mapped there."""
    if not judged.get("premapped"):
        return []
    labels = [cp["label"] for cp in record.get("checkpoints") or []]
    first = judged.get("first_touch")
    return labels[labels.index(first) + 1:] if first in labels else []


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


def cell_summary(record: CellRecord) -> CellSummary:
    judged = record.get("verdicts") or verdicts.judge(record)
    error = record.get("error")
    meter, levels = _levels(record)
    framework, in_use = _framework_levels(record)
    summary: CellSummary = {
        "status": judged.get("status") or record.get("status"),
        "meter": meter,
        "levels": levels,
        "framework_levels": framework,
        "blind_labels": _blind_labels(record, judged),
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
    summary["glance"] = glance.of_cell(summary)
    return summary


def read_judged(run_dir: Path) -> tuple[list[CellRecord], list[tuple[Path, str]]]:
    """The run's records, each re-judged once by today's rules (a record keeps readings), in memory
    only: a record on disk keeps the verdicts it was written with (their ``rules_version`` says by
    which rules), so re-rendering a committed run changes none of its records."""
    records, broken = read_records(run_dir)
    for record in records:
        record["verdicts"] = verdicts.judge(record)
    return records, broken


def build_matrix(run_dir: Path, planned: list[tuple[str, str]] | None = None, note: str = "") -> MatrixDoc:
    records, broken = read_judged(run_dir)
    return matrix_from(records, broken, run_name(run_dir, records), planned if planned is not None else planned_cells(run_dir),
                       note)


def planned_cells(run_dir: Path) -> list[tuple[str, str]]:
    """The cells the run's manifest planned (so cells that never finished show as missing)."""
    try:
        manifest = read_manifest(run_dir)
        return [(str(env), str(name)) for env, name in manifest.get("planned", [])]
    except (OSError, ValueError):
        return []


def run_name(run_dir: Path, records: list[CellRecord]) -> str:
    """The run's id as its records say (a folder may have been renamed), else the folder's name."""
    ids = {r.get("run_id") for r in records if r.get("run_id")}
    return str(ids.pop()) if len(ids) == 1 else run_dir.name


def matrix_from(records: list[CellRecord], broken: list[tuple[Path, str]], run: str,
                planned: list[tuple[str, str]] | None = None, note: str = "") -> MatrixDoc:
    cells: dict[str, dict[str, CellSummary]] = {}
    column = machines.column_namer(records)
    envs: list[str] = list(dict.fromkeys(env for env, _ in planned or []))  # the definitions' order
    ran: set[tuple[str, str]] = set()
    for record in records:
        env, name = column(record), record["scenario"]["name"]
        cells.setdefault(name, {})[env] = cell_summary(record)
        ran.add((record["env"]["name"], name))
        if env not in envs:
            envs.append(env)
    folders = {env.replace("/", "_"): env for env, _ in planned or []}
    for path, why in broken:  # a truncated or foreign file: its cell says so, never "missing"
        env, name = folders.get(path.parent.name, path.parent.name), path.stem.replace("__", "/")
        cells.setdefault(name, {})[env] = _unjudged("unreadable", f"unreadable record {path.name}: {why}"[:200])
        ran.add((env, name))
        if env not in envs:
            envs.append(env)
    for env, name in planned or []:
        if (env, name) not in ran:
            cells.setdefault(name, {}).setdefault(env, _unjudged("missing"))
    envs = [e for e in envs if any(e in row for row in cells.values())]  # an env split by machine: its columns only
    machine = glance.machine(records)
    return {
        "schema_version": MATRIX_SCHEMA_VERSION,
        "record_schema_version": SCHEMA_VERSION,
        "rules_version": rules.RULES_VERSION,
        "run": run,
        "note": note,
        "environments": envs,
        "machine": machine,
        "legend": glance.LEGEND,
        "columns": glance.columns(records, column),
        "scenarios": sorted(cells),
        "cells": cells,
        "unreadable": [{"path": str(p), "reason": why} for p, why in broken],
        "tolerances": tolerances.TOLERANCES,
        "tolerances_text": tolerances.tolerances_text(host_only=machine == glance.NO_GPU),
        "claims": [
            {"id": c.id, "says": c.says, "seed": c.seed, "scenario": c.scenario, "step": c.step or None,
             "expect": list(c.expect), "compare": c.compare, "results": claims.assess(c, cells, envs)}
            for c in claims.load_claims()
        ],
    }


def _unjudged(status: str, error: str | None = None) -> CellSummary:
    """A planned cell with no readable record: its status, and the judge's answer to that (grey)."""
    cell: CellSummary = {"status": status, "steps": [], "exit": None}
    if error:
        cell["error"] = error
    cell["glance"] = glance.of_cell(cell)
    return cell


def outcome(cell: CellSummary) -> str:
    """What a cell came to, in one comparable word: its status, or its last step's verdict."""
    if cell.get("status") != Status.OK:
        return str(cell.get("status"))
    judged = [s["verdict"] for s in cell.get("steps", []) if s["verdict"] != "skipped"]
    return "/".join(judged) if judged else "ok"


def compare(matrix: MatrixDoc, other: MatrixDoc) -> Compare:
    """Cells whose status or verdicts differ between two runs (a driver upgrade, two versions),
    columns paired by name, else by framework (pairing.py); a UsageError when nothing pairs."""
    pairs = pairing.pair_columns(matrix, other)
    changed: list[ChangedCell] = []
    for pair in pairs:
        for name, row in matrix["cells"].items():
            cell, before = row.get(pair["env"]), other["cells"].get(name, {}).get(pair["other_env"])
            if cell is not None and before is not None and outcome(before) != outcome(cell):
                changed.append({"scenario": name, "env": pair["env"], "other_env": pair["other_env"],
                                "before": outcome(before), "after": outcome(cell)})
    return {"other": other["run"], "pairs": pairs, "changed": changed}


ReadRun = tuple[list[CellRecord], list[tuple[Path, str]]]  # a run read: its records judged, the files that were none


def write_reports(run_dir: Path, planned: list[tuple[str, str]] | None = None, note: str = "",
                  compare_with: Path | None = None, judged: ReadRun | None = None,
                  sweep: SweepSummary | None = None) -> MatrixDoc:
    """matrix.json, matrix.md and report.html for ``run_dir`` (each written atomically), from its
    records as ``read_judged(run_dir)`` gives them (read here unless given)."""
    from harness.reporting import report_html

    records, broken = judged if judged is not None else read_judged(run_dir)
    if planned is None:
        planned = planned_cells(run_dir)
    if not note:
        try:
            note = json.loads((run_dir / "matrix.json").read_text(encoding="utf-8")).get("note", "")
        except (OSError, ValueError):
            note = ""
    matrix = matrix_from(records, broken, run_name(run_dir, records), planned, note)
    if compare_with is not None:
        matrix["compare"] = compare(matrix, build_matrix(compare_with))
    if (summary := sweep or sweeps.kept(run_dir, matrix)) is not None:  # a sweep's summary travels with its matrix
        matrix["sweep"] = summary
    write_json(run_dir / "matrix.json", matrix)
    write_text(run_dir / "matrix.md", matrix_md.to_markdown(matrix))
    write_text(run_dir / "report.html", report_html.render(matrix, records))
    return matrix
