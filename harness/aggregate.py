"""The compatibility matrix of a run: scenario x environment -> what really happened.

Reads only the cell records (results.read_records), so a partial, resumed or merged run renders
the same way; a planned cell without a record is ``missing``. Writes matrix.json and matrix.md.
"""
from __future__ import annotations

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


def build_matrix(run_dir: Path, planned: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    records, broken = read_records(run_dir)
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
        "run": run_dir.name,
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


def to_markdown(matrix: dict[str, Any], *, note: str = "") -> str:
    envs = matrix["environments"]
    lines = [f"## GPU memory cleanup matrix ({matrix['run']})", ""]
    if note:
        lines += [note, ""]
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
    t = matrix["tolerances"]
    lines += ["", f"Tolerances: released when left <= max({human_bytes(t['abs_tol_bytes'])}, {t['rel_tol']:.0%} of growth); "
              f"no-signal under {human_bytes(t['min_signal_bytes'])} of growth. n/a: the scenario does not apply to that env."]
    return "\n".join(lines) + "\n"


def write_matrix(run_dir: Path, planned: list[tuple[str, str]] | None = None, note: str = "") -> dict[str, Any]:
    matrix = build_matrix(run_dir, planned)
    write_json(run_dir / "matrix.json", matrix)
    tmp = run_dir / ".matrix.md.tmp"
    tmp.write_text(to_markdown(matrix, note=note), encoding="utf-8")
    tmp.replace(run_dir / "matrix.md")
    return matrix
