"""Every committed reference run's records load and are judged by today's rules into a matrix (matrix.json is made
again by `report`, never committed), and re-rendering it changes no tracked file: a record keeps the verdicts it was
written with (by the rules its ``rules_version`` names, never rewritten), and what is rendered from it is today's
judgement."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from harness.judgement import rules, verdicts
from harness.reporting import aggregate
from harness.reporting.atlas_runs import run_folders
from harness.store.results import read_records

REFERENCE = Path(__file__).resolve().parents[2] / "matrix" / "reference"
SCHEMA = json.loads((REFERENCE.parent / "matrix.schema.json").read_text())
RUNS = run_folders(REFERENCE)


def test_there_are_reference_runs() -> None:
    assert len(RUNS) >= 15


@pytest.mark.parametrize("run_dir", RUNS, ids=[str(r.relative_to(REFERENCE)) for r in RUNS])
def test_records_and_matrix_agree(run_dir: Path) -> None:
    records, broken = read_records(run_dir)
    assert not broken and records
    for record in records:
        stored = record["verdicts"]
        assert stored["rules_version"] <= rules.RULES_VERSION
        if stored["rules_version"] == rules.RULES_VERSION:  # written by today's rules: today's judge agrees
            assert stored == json.loads(json.dumps(verdicts.judge(record), default=str)), record["scenario"]["name"]
    rebuilt = json.loads(json.dumps(aggregate.build_matrix(run_dir), default=str))
    assert rebuilt["rules_version"] == rules.RULES_VERSION
    assert sum(len(row) for row in rebuilt["cells"].values()) >= len(records)
    jsonschema.validate(rebuilt, SCHEMA)


def test_no_matrix_json_is_committed() -> None:
    """What `report` makes again from the records is not kept beside them (a rules bump rewrote every one)."""
    names = subprocess.run(["git", "ls-files", "matrix.json", "*/matrix.json"], cwd=REFERENCE, capture_output=True,
                           text=True, check=True).stdout.split()
    assert names == []


def _tracked(folder: Path) -> dict[str, bytes]:
    names = subprocess.run(["git", "ls-files", "."], cwd=folder, capture_output=True, text=True, check=True).stdout.split()
    return {name: (folder / name).read_bytes() for name in names}


@pytest.mark.parametrize("name", ["h200-580.159.04", "h100-580.159.04-repro", "sweeps/gpu-jax-0.7-0.12-h100"])
def test_report_on_a_committed_run_changes_no_tracked_file(name: str, tmp_path: Path) -> None:
    """`report` re-renders a committed run where it lies: its records and committed pages stay as
    they are (git status clean), whatever today's rules say."""
    source = REFERENCE / name
    if not source.is_dir():
        pytest.skip(f"{name} is not committed here")
    before = _tracked(source)
    copy = tmp_path / "run"
    shutil.copytree(source, copy)
    done = subprocess.run([sys.executable, "-m", "harness", "report", str(copy)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    after = {n: (copy / n).read_bytes() for n in before}
    assert [n for n in before if before[n] != after[n]] == []
