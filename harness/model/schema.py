"""The JSON Schemas of what the tool writes, generated from the types the code reads and writes them
through and shipped beside them, so a reader in another language can check a file without this package:
the record (record.schema.json, in the package) and matrix.json (matrix/matrix.schema.json).

Regenerate after changing a type: ``python -m harness.model.schema`` (a test fails while a shipped
file and its type disagree)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.model.record import SCHEMA_VERSION, adapter

SHIPPED = Path(__file__).with_name("record.schema.json")
MATRIX_SHIPPED = Path(__file__).resolve().parents[2] / "matrix" / "matrix.schema.json"  # beside the references
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def record_schema() -> dict[str, Any]:
    schema: dict[str, Any] = adapter().json_schema(mode="validation")
    schema["$id"] = f"urn:gpu-cleanup-matrix:record:v{SCHEMA_VERSION}"
    return schema


def matrix_schema() -> dict[str, Any]:
    """matrix.json's: model/judged.MatrixDoc, as reporting/aggregate writes it."""
    from pydantic import TypeAdapter

    from harness.model.judged import MatrixDoc

    schema: dict[str, Any] = TypeAdapter(MatrixDoc).json_schema(mode="validation")
    return {"$schema": DRAFT, "$id": "urn:gpu-cleanup-matrix:matrix:v1", **schema}


def as_text(schema: dict[str, Any] | None = None) -> str:
    return json.dumps(record_schema() if schema is None else schema, indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    SHIPPED.write_text(as_text(), encoding="utf-8")
    MATRIX_SHIPPED.write_text(as_text(matrix_schema()), encoding="utf-8")
