"""atlas.json's JSON Schema (atlas.schema.json beside it), made from the dataset's own column
descriptions: every row's keys and their types, the answers and colours the judge gives, so a reader
checks the file with any draft 2020-12 validator before loading it into a data frame."""
from __future__ import annotations

from typing import Any

from harness.judgement.answer import COLOUR
from harness.reporting.atlas_data import DATASET_VERSION, GRID_SCHEMA, RUN_SCHEMA, STEP_SCHEMA

COUNTS = {"runs", "not_measured", "rules_version"}  # whole numbers
FLAGS = {"turn", "turn_confirmed"}
MAYBE_BYTES = {"left_bytes", "spread_bytes"}  # bytes, or "" where there is no amount (a cell without a step)


def _column(name: str, description: str) -> dict[str, Any]:
    kind: dict[str, Any] = {"type": "string"}
    if name in COUNTS:
        kind = {"type": "integer", "minimum": 0}
    elif name in FLAGS:
        kind = {"type": "boolean"}
    elif name in MAYBE_BYTES:
        kind = {"anyOf": [{"type": "integer"}, {"const": ""}]}
    elif name == "colour":
        kind = {"enum": sorted(colour.value for colour in COLOUR.values())}
    elif name == "back":
        kind = {"enum": sorted(COLOUR)}
    return {**kind, "description": description}


def _rows(columns: dict[str, str]) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "object", "additionalProperties": False, "required": list(columns),
                                       "properties": {name: _column(name, said) for name, said in columns.items()}}}


def atlas_schema() -> dict[str, Any]:
    """The schema atlas.json validates against (its rows: atlas_data's GRID_SCHEMA, RUN_SCHEMA, STEP_SCHEMA)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "atlas.schema.json",
        "title": "GPU memory cleanup atlas: every reference cell, judged", "type": "object",
        "required": ["dataset_version", "cells", "rules_version", "commit", "schema", "grid", "runs", "steps"],
        "additionalProperties": False,
        "properties": {
            "dataset_version": {"const": DATASET_VERSION, "description": "the layout of this file"},
            "cells": {"type": "integer", "minimum": 0, "description": "records read (one run row each)"},
            "rules_version": {"type": "integer", "description": "the judge's rules every row was judged by"},
            "commit": {"type": "string", "description": "the checkout's commit that judged it"},
            "schema": {"type": "object", "description": "each list's columns in words (grid, runs, steps)"},
            "grid": _rows(GRID_SCHEMA), "runs": _rows(RUN_SCHEMA), "steps": _rows(STEP_SCHEMA),
        },
    }
