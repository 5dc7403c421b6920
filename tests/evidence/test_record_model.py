"""The typed record: every committed record loads through it unchanged, the shipped JSON Schema is
the model's, old records are upgraded in memory, and a malformed one is refused in one line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from harness.model import schema
from harness.model.record import ErrorKind, Status, error_kind, harness_failed, parse
from harness.store import results
from harness.store.upgrade import TooNew, upgraded

REFERENCE = Path(__file__).resolve().parents[2] / "matrix" / "reference"
HERE = Path(__file__).resolve().parents[2]


def _committed() -> list[Path]:
    return sorted(p for p in REFERENCE.rglob("*.json.gz"))


def test_every_committed_record_round_trips_through_the_model() -> None:
    paths = _committed()
    assert len(paths) > 900
    for path in paths:
        raw = results.load_record(path)
        before = json.dumps(raw, sort_keys=True)
        record = parse(raw)
        assert record is raw and json.dumps(record, sort_keys=True) == before, path  # read is as written: nothing lost or added
        assert Status(record["status"]) in Status


def test_the_shipped_schema_is_the_models_and_accepts_a_committed_record() -> None:
    assert schema.SHIPPED.read_text(encoding="utf-8") == schema.as_text(), "run: python -m harness.model.schema"
    raw = results.load_record(_committed()[0])
    jsonschema.validate(raw, schema.record_schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**raw, "status": "fine"}, schema.record_schema())


def test_an_unversioned_record_is_upgraded_in_memory_and_a_newer_one_refused() -> None:
    raw = results.load_record(_committed()[0])
    old = {k: v for k, v in raw.items() if k != "schema_version"}
    assert upgraded(old)["schema_version"] == 1 and "schema_version" not in old
    with pytest.raises(TooNew, match="newer than this tool reads"):
        upgraded({**raw, "schema_version": 99})


def test_reading_refuses_a_malformed_record_in_one_line_and_keeps_the_others(tmp_path: Path) -> None:
    good = results.load_record(_committed()[0])
    results.write_json(tmp_path / "env" / "good.json", good)
    results.write_json(tmp_path / "env" / "bad.json", {**good, "checkpoints": [{"readings": {}}]})
    results.write_json(tmp_path / "env" / "newer.json", {**good, "schema_version": 7})
    records, broken = results.read_records(tmp_path)
    assert [r["scenario"]["name"] for r in records] == [good["scenario"]["name"]]
    why = dict((p.name, w) for p, w in broken)
    assert why["bad.json"].startswith("not a valid record: checkpoints.0.label: Field required")
    assert "newer than this tool reads" in why["newer.json"]
    assert all("\n" not in w for w in why.values())


def test_reading_a_committed_folder_writes_nothing(tmp_path: Path) -> None:
    run = next(p.parent for p in sorted(REFERENCE.rglob("manifest.json")))
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    results.read_records(run)
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before


def test_error_kinds_tell_the_harness_from_the_script() -> None:
    raw = results.load_record(_committed()[0])
    lost = parse({**raw, "status": "harness-error", "error": {"type": "EngineLost", "message": "x"}})
    script = parse({**raw, "status": "error", "error": {"type": "RuntimeError", "message": "x"}})
    assert error_kind(lost.get("error")) is ErrorKind.ENGINE_LOST and harness_failed(lost)
    assert error_kind(script.get("error")) is None and not harness_failed(script)


MISSPELT = """
from harness.model.record import CellRecord

def status_of(record: CellRecord) -> str:
    return str(record["stauts"])

def pid_of(record: CellRecord) -> object:
    return record.get("scrypt_pid")

def label_of(record: CellRecord) -> str:
    return record["checkpoints"][0]["lable"]
"""


def test_mypy_strict_refuses_a_misspelt_record_field(tmp_path: Path) -> None:
    """The record is typed: code that reads a field that does not exist fails the type check."""
    pytest.importorskip("mypy")
    probe = tmp_path / "probe.py"
    probe.write_text(MISSPELT, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent",
                           str(probe)], cwd=HERE, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout
    for said in ('TypedDict "CellRecord" has no key "stauts"', 'TypedDict "CellRecord" has no key "scrypt_pid"',
                 'TypedDict "Checkpoint" has no key "lable"'):  # [], .get (tools/mypy_record_keys.py), a nested part
        assert said in done.stdout, done.stdout
    fixed = MISSPELT.replace("stauts", "status").replace("scrypt_pid", "script_pid").replace("lable", "label")
    probe.write_text(fixed, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent",
                           str(probe)], cwd=HERE, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout


def test_a_record_the_model_refuses_is_still_written_and_named_on_reading(tmp_path: Path) -> None:
    """A harness fault in one record never loses it, nor stops the run: it is written, and reading
    names its first problem in one line while the other records read as usual."""
    import gzip
    import json

    from harness.store import results

    source = next(REFERENCE.rglob("*.json.gz"))
    good = json.loads(gzip.open(source).read())
    good["after_exit"] = {**(good.get("after_exit") or {}), "processes_left": [31194]}  # PIDs still alive: valid
    results.write_record(tmp_path, good)
    bad = json.loads(json.dumps(good))
    bad["scenario"]["name"] = "torch/other"
    bad["checkpoints"] = "not a list"
    path = results.write_record(tmp_path, bad)
    assert json.loads(path.read_text())["checkpoints"] == "not a list"  # what was measured is on disk
    records, broken = results.read_records(tmp_path)
    assert [r["scenario"]["name"] for r in records] == [good["scenario"]["name"]]
    ((where, why),) = broken
    assert where == path and "checkpoints" in why and "\n" not in why
