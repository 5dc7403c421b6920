"""The atlas's dataset: atlas.json (``grid``, ``runs`` and ``steps``: flat lists, each row a dict a
data frame loads in one line) and atlas.csv (the grid), each column described in the file itself.

``grid``: one row per grid cell (a technique on a release and its hardware): the answer the atlas
shows, its colour, how many distinct runs measured it and whether it turned from the release
before. ``runs``: one row per record, with the step that answers. ``steps``: one row per judged
step. Ids are stable across rebuilds (hashes of what a row is about).
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import asdict
from typing import Any

from harness.judgement import rules
from harness.judgement.answer import COLOUR, decisive_step
from harness.judgement.turns import confirmed
from harness.model.judged import Step
from harness.model.record import Status
from harness.reporting.atlas import Cell, grid_id
from harness.reporting.atlas_answers import answer_of, turn_runs

NO_STEP: Step = {"label": "", "verdict": ""}  # a cell without a judged step: its row says none
DATASET_VERSION = 4  # 4: each run row says how its release ran where not as its own install would (ran_with);
# 3: each run row names its record (path, sha1) and stand-in base; the rules and commit that judged it all (2: grid
# and runs beside the steps; 1: the steps, as "rows")
STEP_SCHEMA = {
    "id": "stable id of the row: sha1 of run, environment, technique and step (16 hex digits)",
    "cell": "stable id of the measured cell (run, environment, technique): every step of it shares this",
    "run": "the reference run's folder under matrix/reference/",
    "env": "the environment's name in that run",
    "column": "framework release and hardware, the atlas's column (e.g. 'torch 2.15.0 · H100 80GB HBM3')",
    "framework": "the framework the technique exercises (tensorflow, torch, jax, cupy; python for plain scripts)",
    "release": "its version as the cell imported it",
    "hardware": "the GPU model the cell measured, or CPU (host memory only)",
    "driver": "NVIDIA driver version, empty on CPU",
    "backend": "docker (a container of the environment's image) or process/venv (a host interpreter)",
    "image": "the image the cell ran in, empty for a host process",
    "definition_hash": "the image's definition hash (Dockerfile and pins), empty when not built by this tool",
    "python": "the cell's Python version",
    "cuda": ("the CUDA the cell ran: its build's as the framework reported it, else CuPy's build by its name, else the "
             "runtime wheel loaded; empty when none"),
    "technique": "the scenario (cleanup technique) or repro/<script>",
    "family": "the scenario's API family (tf1, tf2, torch, jax, cupy, repro)",
    "status": "how the cell ended (ok, error, unsupported, timeout, crashed, harness-error, ...)",
    "step": "the checkpoint judged (a cleanup step), empty for a cell without one",
    "verdict": "released, cached, held, partial, no-signal or skipped: today's judgement of the readings",
    "meter": "the reading judged: nvml_process, nvml_device (GPU) or rss (host memory)",
    "left_bytes": "what was left at the step against the floor (bytes)",
    "back": "the cell's answer to 'did it come back' (all, part, none, n/a, borderline): the atlas colour",
    "word": "the cell's answer in a few words",
    "date": "when the cell ran (UTC, ISO 8601)",
}


GRID_SCHEMA = {
    "id": "stable id of the grid cell: sha1 of technique and column (16 hex digits)",
    "technique": STEP_SCHEMA["technique"], "framework": STEP_SCHEMA["framework"], "release": STEP_SCHEMA["release"],
    "hardware": STEP_SCHEMA["hardware"], "column": STEP_SCHEMA["column"],
    "colour": "the answer's colour: green (all back), amber (part back, or grew in a loop), red (none back), grey (n/a), "
              "blue (borderline: within the meter's noise of a line, not judged)",
    "back": STEP_SCHEMA["back"], "word": "the answer the grid shows: the one most of its measured runs gave",
    "runs": "distinct measured runs of this cell (a byte-identical copy counts once; skipped or failed ones not at all)",
    "not_measured": "runs of this cell that measured nothing (skipped, failed, not finished)",
    "turn": "true where the answer differs from the previous measured release on the same hardware",
    "turn_confirmed": "true where that turn stands on 3 or more agreeing runs on each side (false: a candidate turn)",
    "spread_bytes": ("how far the measured runs' amounts left at their answering step lie apart (max - min, bytes); "
                     "empty with fewer than 2 runs or no amount"),
}
RUN_KEYS = ("run", "env", "column", "framework", "release", "hardware", "driver", "backend", "image", "definition_hash",
            "python", "cuda", "technique", "family", "status", "back", "word", "date")
RUN_SCHEMA = {"id": "stable id of the record's cell (run, environment, technique)",
              **{k: STEP_SCHEMA[k] for k in RUN_KEYS},
              "record": "the record's file under matrix/reference/ (gzipped JSON)",
              "record_sha1": "sha1 of the record's file as committed (sha1sum matrix/reference/<record>)",
              "stand_in": "what the base image was where it stood in for the one the image names, else empty",
              "ran_with": ("how the release ran where not as its own install would: a lockstep companion at another "
                           "release, packages its environment added, a stand-in for the framework's own image; else "
                           "empty"),
              "step": "the step that answers (the last measured one)", "verdict": STEP_SCHEMA["verdict"],
              "meter": STEP_SCHEMA["meter"], "left_bytes": STEP_SCHEMA["left_bytes"],
              "rules_version": "the version of the judge's rules that judged this record (judgement/rules.py)",
              "commit": "the tool's commit that judged it (the checkout the atlas was built from)"}


def step_rows(cells: list[Cell]) -> list[dict[str, Any]]:
    """atlas.json's and atlas.csv's rows: one per judged step (one per cell without a step)."""
    out = []
    for cell in cells:
        base = {k: v for k, v in asdict(cell).items() if k in STEP_SCHEMA}
        base.update(cell=cell.cell_id, column=cell.column)
        judged = cell.status != Status.UNSUPPORTED.value  # a build this hardware cannot run: its steps answer nothing
        for step in [s for s in cell.steps if judged and s.get("verdict") != "skipped"] or [NO_STEP]:
            label = step["label"]
            out.append({**base, "id": hashlib.sha1(f"{cell.cell_id}|{label}".encode()).hexdigest()[:16], "step": label,
                        "verdict": step["verdict"], "meter": step.get("meter") or "",
                        "left_bytes": left if (left := step.get("left")) is not None else ""})
    return [{k: row.get(k, "") for k in STEP_SCHEMA} for row in out]


def run_rows(cells: list[Cell], commit: str = "") -> list[dict[str, Any]]:
    """One row per record: where it ran, its answer and the step that gave it, and what judged it."""
    out = []
    for cell in cells:
        step = (decisive_step(list(cell.steps)) if cell.back != "n/a" else None) or NO_STEP  # grey: no verdict
        row = {k: v for k, v in asdict(cell).items() if k in RUN_SCHEMA}
        row.update(id=cell.cell_id, column=cell.column, record=cell.record_path, record_sha1=cell.file_sha1,
                   step=step["label"], verdict=step["verdict"], meter=step.get("meter") or "",
                   left_bytes=left if (left := step.get("left")) is not None else "",
                   rules_version=rules.RULES_VERSION, commit=commit)
        out.append({k: row.get(k, "") for k in RUN_SCHEMA})
    return out


def grid_rows(grid: dict[str, dict[str, list[Cell]]], cols: list[str]) -> list[dict[str, Any]]:
    """One row per grid cell, as the grid shows it (atlas_html.grid_cell takes the same answer)."""
    out = []
    for technique in sorted(grid):
        turned = turn_runs(grid[technique], cols)
        for col in (c for c in cols if c in grid[technique]):
            cells = grid[technique][col]
            shown, runs, back = answer_of(cells)
            out.append({"id": grid_id(technique, col), "technique": technique,
                        "framework": shown.framework, "release": shown.release, "hardware": shown.hardware, "column": col,
                        "colour": COLOUR[back].value, "back": back, "word": shown.word, "runs": len(runs),
                        "not_measured": sum(1 for c in cells if c.status != Status.OK), "turn": col in turned,
                        "turn_confirmed": col in turned and confirmed(turned[col]), "spread_bytes": _spread(runs)})
    return out


def _spread(runs: list[Cell]) -> int | str:
    """max - min of what the runs left at their answering step, or '' with fewer than two amounts."""
    left = [int(amount) for c in runs if (step := decisive_step(list(c.steps))) and (amount := step.get("left")) is not None]
    return max(left) - min(left) if len(left) > 1 else ""


def as_csv(table: list[dict[str, Any]], schema: dict[str, str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(schema), lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)
    return buffer.getvalue()


def as_json(cells: list[Cell], grid: list[dict[str, Any]], commit: str = "") -> str:
    """atlas.json, ``grid`` being grid_rows' (atlas.csv is made of the same rows); ``commit``: the checkout's,
    which with the rules version says what judged every row."""
    data = {"dataset_version": DATASET_VERSION, "cells": len(cells), "rules_version": rules.RULES_VERSION,
            "commit": commit,
            "schema": {"grid": GRID_SCHEMA, "runs": RUN_SCHEMA, "steps": STEP_SCHEMA},
            "grid": grid, "runs": run_rows(cells, commit), "steps": step_rows(cells)}
    return json.dumps(data, indent=1, sort_keys=True) + "\n"
