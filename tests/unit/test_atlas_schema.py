"""atlas.json's JSON Schema refuses what a reader's code would trip on: a count given as text, a colour
the judge never gives, a column missing or added."""
from __future__ import annotations

import jsonschema
import pytest

from harness.reporting.atlas_data import DATASET_VERSION, GRID_SCHEMA, RUN_SCHEMA, STEP_SCHEMA
from harness.reporting.atlas_schema import atlas_schema

GRID_ROW = {"id": "5e90bf448618cc74", "technique": "tf1/allow_growth", "framework": "tensorflow", "release": "2.21.0",
            "hardware": "H100 80GB HBM3", "column": "tensorflow 2.21.0 · H100 80GB HBM3", "colour": "red", "back": "none",
            "word": "held by the process: 1.00 GiB", "runs": 2, "not_measured": 1, "turn": False,
            "turn_confirmed": False, "spread_bytes": ""}


def _doc(**grid_row: object) -> dict[str, object]:
    return {"dataset_version": DATASET_VERSION, "cells": 0, "rules_version": 14, "commit": "0" * 40,
            "schema": {"grid": GRID_SCHEMA, "runs": RUN_SCHEMA, "steps": STEP_SCHEMA},
            "grid": [{**GRID_ROW, **grid_row}], "runs": [], "steps": []}


def test_a_grid_row_as_the_atlas_writes_it_validates() -> None:
    assert set(GRID_ROW) == set(GRID_SCHEMA)
    jsonschema.validate(_doc(), atlas_schema(), cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize("wrong", [{"runs": "2"}, {"colour": "purple"}, {"back": "some"}, {"turn": "false"}, {"extra": 1}])
def test_a_row_a_reader_would_trip_on_is_refused(wrong: dict[str, object]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_doc(**wrong), atlas_schema(), cls=jsonschema.Draft202012Validator)
