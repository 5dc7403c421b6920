"""The compatibility matrix of a run: scenario x environment -> what really happened.

Reads only the cell records (results.read_records), so a partial, resumed or merged run renders
the same way; a planned cell without a record is ``missing``. Writes matrix.json, matrix.md and
report.html (report_html.py), and compares two runs.
"""
from __future__ import annotations

import json
from pathlib import Path

from harness.judgement import claims, rules, tolerances
from harness.judgement.cell import judge_cell, judge_unrun, read_judged
from harness.model.judged import CellSummary, ChangedCell, Compare, MatrixDoc, SweepSummary
from harness.model.record import SCHEMA_VERSION, CellRecord, Status
from harness.reporting import glance, machines, matrix_md, pairing, sweeps
from harness.store.results import read_manifest, write_json, write_manifest, write_text

MATRIX_SCHEMA_VERSION = 1


def build_matrix(run_dir: Path, planned: list[tuple[str, str]] | None = None, note: str = "") -> MatrixDoc:
    """The run's matrix as today's rules make it from its records (what ``report`` writes as matrix.json)."""
    records, broken = read_judged(run_dir)
    return matrix_from(records, broken, run_name(run_dir, records), planned if planned is not None else planned_cells(run_dir),
                       note or _kept_note(run_dir))


def _keep_note(run_dir: Path, note: str) -> None:
    """``note`` in the run's manifest, whence a re-render reads it (matrix.json is made again, never kept)."""
    try:
        manifest = read_manifest(run_dir)
    except (OSError, ValueError):
        return
    if manifest.get("note") != note:
        manifest["note"] = note
        write_manifest(run_dir, manifest)


def _kept_note(run_dir: Path) -> str:
    """The run's note: its manifest's, else a matrix.json's written before the manifest kept it."""
    try:
        if note := read_manifest(run_dir).get("note"):
            return note
    except (OSError, ValueError):
        pass
    try:
        return str(json.loads((run_dir / "matrix.json").read_text(encoding="utf-8")).get("note", ""))
    except (OSError, ValueError):
        return ""


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
        cells.setdefault(name, {})[env] = judge_cell(record)
        ran.add((record["env"]["name"], name))
        if env not in envs:
            envs.append(env)
    folders = {env.replace("/", "_"): env for env, _ in planned or []}
    for path, why in broken:  # a truncated or foreign file: its cell says so, never "missing"
        env, name = folders.get(path.parent.name, path.parent.name), path.stem.replace("__", "/")
        cells.setdefault(name, {})[env] = judge_unrun("unreadable", f"unreadable record {path.name}: {why}"[:200])
        ran.add((env, name))
        if env not in envs:
            envs.append(env)
    for env, name in planned or []:
        if (env, name) not in ran:
            cells.setdefault(name, {}).setdefault(env, judge_unrun("missing"))
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
    if note:
        _keep_note(run_dir, note)
    else:
        note = _kept_note(run_dir)
    matrix = matrix_from(records, broken, run_name(run_dir, records), planned, note)
    if compare_with is not None:
        matrix["compare"] = compare(matrix, build_matrix(compare_with))
    if (summary := sweep or sweeps.kept(run_dir, matrix)) is not None:  # a sweep's summary travels with its matrix
        matrix["sweep"] = summary
    write_json(run_dir / "matrix.json", matrix)
    write_text(run_dir / "matrix.md", matrix_md.to_markdown(matrix))
    write_text(run_dir / "report.html", report_html.render(matrix, records))
    return matrix
