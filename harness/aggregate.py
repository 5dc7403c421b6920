"""The compatibility matrix of a run: scenario x environment -> what really happened.

Reads only the cell records (results.read_records), so a partial, resumed or merged run renders
the same way; a planned cell without a record is ``missing``. Writes matrix.json, matrix.md and
report.html (report_html.py), and compares two runs.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import claims, verdicts
from .render import human_bytes
from .results import SCHEMA_VERSION, read_records, write_json

MATRIX_SCHEMA_VERSION = 1


def _levels(record: dict[str, Any]) -> tuple[str | None, dict[str, int]]:
    """The cell's primary meter and each checkpoint's reading above the floor on it."""
    checkpoints = record.get("checkpoints") or []
    meter = verdicts.primary_meter([cp for cp in checkpoints if not cp.get("skipped")],
                                   (record.get("scenario") or {}).get("meter"))
    floor, _, _ = verdicts.roles(checkpoints, (record.get("scenario") or {}).get("cleanup"))
    if meter is None or floor is None:
        return meter, {}
    base = checkpoints[floor]["readings"][meter]
    return meter, {cp["label"]: cp["readings"][meter] - base for cp in checkpoints
                   if cp["readings"].get(meter) is not None and not cp.get("skipped")}


def cell_summary(record: dict[str, Any]) -> dict[str, Any]:
    judged = record.get("verdicts") or verdicts.judge(record)
    error = record.get("error") or {}
    meter, levels = _levels(record)
    return {
        "status": record.get("status"),
        "meter": meter,
        "levels": levels,
        "exit_meter": (judged.get("exit") or {}).get("meter"),
        "steps": [{k: s.get(k) for k in ("label", "verdict", "meter", "left", "grown", "reason")} for s in judged["steps"]],
        "exit": (judged.get("exit") or {}).get("verdict"),
        "error": (error.get("type", "") + ": " + str(error.get("message", "")).splitlines()[0]) if error.get("message") else None,
        "framework": record.get("facts", {}).get("frameworks", {}),
        "python": record.get("facts", {}).get("python"),
        "duration_s": record.get("duration_s"),
    }


def build_matrix(run_dir: Path, planned: list[tuple[str, str]] | None = None, note: str = "") -> dict[str, Any]:
    records, broken = read_records(run_dir)
    return matrix_from(records, broken, run_dir.name, planned if planned is not None else planned_cells(run_dir), note)


def planned_cells(run_dir: Path) -> list[tuple[str, str]]:
    """The cells the run's manifest planned (so cells that never finished show as missing)."""
    try:
        manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
        return [(str(env), str(name)) for env, name in manifest.get("planned", [])]
    except (OSError, ValueError):
        return []


def matrix_from(records: list[dict[str, Any]], broken: list[tuple[Path, str]], run: str,
                planned: list[tuple[str, str]] | None = None, note: str = "") -> dict[str, Any]:
    cells: dict[str, dict[str, Any]] = {}
    envs: list[str] = list(dict.fromkeys(env for env, _ in planned or []))  # the definitions' order
    for record in records:
        env, name = record["env"]["name"], record["scenario"]["name"]
        cells.setdefault(name, {})[env] = cell_summary(record)
        if env not in envs:
            envs.append(env)
    for env, name in planned or []:
        cells.setdefault(name, {}).setdefault(env, {"status": "missing", "steps": [], "exit": None})
    return {
        "schema_version": MATRIX_SCHEMA_VERSION,
        "record_schema_version": SCHEMA_VERSION,
        "run": run,
        "note": note,
        "environments": envs,
        "scenarios": sorted(cells),
        "cells": cells,
        "unreadable": [{"path": str(p), "reason": why} for p, why in broken],
        "tolerances": verdicts.TOLERANCES,
        "claims": [
            {"id": c.id, "says": c.says, "seed": c.seed, "scenario": c.scenario, "step": c.step or None,
             "expect": list(c.expect), "compare": c.compare, "results": claims.assess(c, cells, envs)}
            for c in claims.load_claims()
        ],
    }


def outcome(cell: dict[str, Any]) -> str:
    """What a cell came to, in one comparable word: its status, or its last step's verdict."""
    if cell.get("status") != "ok":
        return str(cell.get("status"))
    judged = [s["verdict"] for s in cell.get("steps", []) if s["verdict"] != "skipped"]
    return "/".join(judged) if judged else "ok"


def compare(matrix: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """Cells whose status or verdicts differ between two runs (a driver upgrade, two versions)."""
    changed = []
    for name, row in matrix["cells"].items():
        for env, cell in row.items():
            before = other["cells"].get(name, {}).get(env)
            if before is not None and outcome(before) != outcome(cell):
                changed.append({"scenario": name, "env": env, "before": outcome(before), "after": outcome(cell)})
    return {"other": other["run"], "changed": changed}


def cell_text(cell: dict[str, Any]) -> str:
    """One Markdown cell: the status when it is not ok, else each step's verdict and what is left."""
    status = cell.get("status")
    if status != "ok":
        return f"**{status}**" + (f" ({cell['error'][:80]})" if cell.get("error") else "")
    parts = []
    for step in cell["steps"]:
        left = f", {human_bytes(step['left'])} left" if step.get("left") is not None and step["verdict"] != "skipped" else ""
        parts.append(f"{step['label']}: {step['verdict']}{left}")
    if cell.get("exit"):
        parts.append(f"exit: {cell['exit']}")
    return "<br>".join(parts) or "ok (no cleanup step)"


def _claim_mark(result: dict[str, Any]) -> str:
    symbol = {"confirmed": "✅ confirmed", "contradicted": "❌ contradicted", "untestable": "➖ untestable"}
    return f"{symbol[result['outcome']]} ({result['why']})"


def to_markdown(matrix: dict[str, Any]) -> str:
    envs = matrix["environments"]
    lines = [f"## GPU memory cleanup matrix ({matrix['run']})", ""]
    if matrix.get("note"):
        lines += [matrix["note"], ""]
    lines.append("| scenario | " + " | ".join(envs) + " |")
    lines.append("|---|" + "---|" * len(envs))
    for name in matrix["scenarios"]:
        row = matrix["cells"][name]
        lines.append(f"| `{name}` | " + " | ".join(cell_text(row[e]) if e in row else "n/a" for e in envs) + " |")
    lines += ["", "### Claims from the seeds", ""]
    lines += ["| claim | seed | " + " | ".join(envs) + " |", "|---|---|" + "---|" * len(envs)]
    for claim in matrix.get("claims", []):
        results = claim["results"]
        if not results:
            continue  # no cell of this run can speak to it
        marks = [_claim_mark(results[e]) if e in results else "" for e in envs]
        seed = claim["seed"][:3] if claim["seed"][:3].isdigit() else claim["seed"]
        lines.append(f"| {claim['says']} (`{claim['scenario']}`) | `{seed}` | " + " | ".join(marks) + " |")
    if matrix.get("compare"):
        diff = matrix["compare"]
        lines += ["", f"### Changed since {diff['other']}", ""]
        changes = [f"- `{c['scenario']}` @ {c['env']}: {c['before']} -> **{c['after']}**" for c in diff["changed"]]
        lines += changes or ["- nothing"]
    t = matrix["tolerances"]
    lines += ["", f"Tolerances: released when left <= max({human_bytes(t['abs_tol_bytes'])}, {t['rel_tol']:.0%} of growth); "
              f"no-signal under {human_bytes(t['min_signal_bytes'])} of growth. n/a: the scenario does not apply to that env."]
    return "\n".join(lines) + "\n"


def write_reports(run_dir: Path, planned: list[tuple[str, str]] | None = None, note: str = "",
                  compare_with: Path | None = None) -> dict[str, Any]:
    """matrix.json, matrix.md and report.html for ``run_dir`` (each written atomically)."""
    from . import report_html

    records, broken = read_records(run_dir)
    if planned is None:
        planned = planned_cells(run_dir)
    if not note:
        try:
            note = json.loads((run_dir / "matrix.json").read_text(encoding="utf-8")).get("note", "")
        except (OSError, ValueError):
            note = ""
    matrix = matrix_from(records, broken, run_dir.name, planned, note)
    if compare_with is not None:
        matrix["compare"] = compare(matrix, build_matrix(compare_with))
    write_json(run_dir / "matrix.json", matrix)
    _write_text(run_dir / "matrix.md", to_markdown(matrix))
    _write_text(run_dir / "report.html", report_html.render(matrix, records))
    return matrix


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
