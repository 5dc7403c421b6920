"""Every committed reference run says the same thing in its records, its matrix.json and its
repro.md: stored verdicts are today's (re-judging rewrites them), so no file disagrees with another."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.judgement import verdicts
from harness.reporting import aggregate

REFERENCE = Path(__file__).resolve().parents[2] / "matrix" / "reference"
RUNS = sorted(p.parent for p in REFERENCE.rglob("matrix.json"))


def test_there_are_reference_runs() -> None:
    assert len(RUNS) >= 15


@pytest.mark.parametrize("run_dir", RUNS, ids=[str(r.relative_to(REFERENCE)) for r in RUNS])
def test_records_and_matrix_agree(run_dir: Path) -> None:
    records, broken = aggregate.read_records(run_dir)
    assert not broken and records
    for record in records:
        today = json.loads(json.dumps(verdicts.judge(record), default=str))
        assert record["verdicts"] == today, f"{record['scenario']['name']}: stored verdicts are not today's"
    saved = json.loads((run_dir / "matrix.json").read_text())
    rebuilt = json.loads(json.dumps(aggregate.build_matrix(run_dir, note=saved.get("note", "")), default=str))
    assert saved["cells"] == rebuilt["cells"]
    assert [c["results"] for c in saved["claims"]] == [c["results"] for c in rebuilt["claims"]]
