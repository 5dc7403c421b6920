"""Every committed matrix.json follows the shipped schema (generated from model/judged.MatrixDoc)."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema

ROOT = Path(__file__).resolve().parents[2]


def test_every_reference_matrix_follows_the_schema() -> None:
    schema = json.loads((ROOT / "matrix" / "matrix.schema.json").read_text())
    found = sorted((ROOT / "matrix" / "reference").rglob("matrix.json"))
    assert len(found) > 100
    for path in found:
        jsonschema.validate(json.loads(path.read_text()), schema)
