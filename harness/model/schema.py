"""The record's JSON Schema, generated from the model and shipped beside it (record.schema.json),
so a reader in another language can check a record without this package.

Regenerate after changing the model: ``python -m harness.model.schema`` (a unit test fails while
the shipped file and the model disagree)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.model.record import SCHEMA_VERSION, adapter

SHIPPED = Path(__file__).with_name("record.schema.json")


def record_schema() -> dict[str, Any]:
    schema: dict[str, Any] = adapter().json_schema(mode="validation")
    schema["$id"] = f"urn:gpu-cleanup-matrix:record:v{SCHEMA_VERSION}"
    return schema


def as_text() -> str:
    return json.dumps(record_schema(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    SHIPPED.write_text(as_text(), encoding="utf-8")
