"""The compatibility matrix of a run: scenario x environment -> what really happened.

Reads only the cell records (results.read_records), so a partial, resumed or merged run renders
the same way; a planned cell without a record is ``missing``. Writes matrix.json and matrix.md.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from . import verdicts
from .render import human_bytes
from .results import SCHEMA_VERSION, read_records, write_json

MATRIX_SCHEMA_VERSION = 1


def cell_summary(record: dict[str, Any]) -> dict[str, Any]:
    judged = record.get("verdicts") or verdicts.judge(record)
    error = record.get("error") or {}
    return {
        "status": record.get("status"),
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
