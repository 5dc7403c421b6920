"""Which records --resume leaves alone: the script's results stay, the harness's failures run again."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.running.interruption import finished


@pytest.mark.parametrize(("status", "error", "kept"), [
    ("ok", None, True),
    ("crashed", "Crashed", True),  # the script's own result
    ("skipped", "Skipped", True),  # decided by the plan (no wheel for this Python): the same next time
    ("interrupted", "Interrupted", False),  # cut by the user
    ("harness-error", "EngineLost", False),  # the engine went away
    ("harness-error", "EnvironmentFailed", False),  # its image could not be built (a wheel not there yet)
    ("harness-error", "StartFailed", False),  # the cell could not start (its files gone with the machine)
])
def test_resume_runs_again_what_the_harness_failed(tmp_path: Path, status: str, error: str | None, kept: bool) -> None:
    path = tmp_path / "cell.json"
    path.write_text(json.dumps({"status": status, "error": {"type": error} if error else None}))
    assert finished(path) is kept


def test_a_record_cut_while_written_runs_again(tmp_path: Path) -> None:
    path = tmp_path / "cell.json"
    path.write_text('{"status": "ok", "err')
    assert finished(path) is False
    assert finished(tmp_path / "missing.json") is False


def test_a_gzipped_record_is_read_as_kept(tmp_path: Path) -> None:
    """A committed reference keeps its records gzipped: resuming it runs only what the harness failed."""
    from harness.store.results import write_gzipped

    write_gzipped(tmp_path / "ok.json.gz", {"status": "ok", "error": None})
    write_gzipped(tmp_path / "failed.json.gz", {"status": "harness-error", "error": {"type": "EnvironmentFailed"}})
    assert finished(tmp_path / "ok.json") is True
    assert finished(tmp_path / "failed.json") is False


def test_a_run_request_comes_back_from_its_manifest_as_it_was_asked(tmp_path: Path) -> None:
    """--resume reads the request back field by field from the model (KEPT), not from a hand-written
    copy: every kept value survives the manifest, and every field of the request is either kept or
    named here as rebuilt or local to this process (a new option must choose)."""
    from dataclasses import fields

    from harness.running.request import MatrixOptions, kept_fields
    from harness.running.resume import request_of, resume_options

    local = {"results_root", "build", "jobs", "gpu_indices", "extra_envs", "venv_root", "items", "run_id", "resume"}
    assert {f.name for f in fields(MatrixOptions)} == set(kept_fields()) | local
    asked = MatrixOptions(envs=["torch"], scenarios=["torch/*"], variant="cpu", timeout=30.0, params={"mib": 8},
                          gpu_mode="cdi", backend="venv", setenv={"A": "1"}, with_pins=["torch==2.5.1"],
                          index_url="https://example.invalid/simple", cluster="ray")
    run_dir = tmp_path / "run-1"
    run_dir.mkdir()
    (run_dir / "manifest.json").write_text(json.dumps({"request": request_of(asked)}), encoding="utf-8")
    back = resume_options(run_dir, MatrixOptions())
    assert {name: getattr(back, name) for name in kept_fields()} == {name: getattr(asked, name) for name in kept_fields()}
    assert back.resume and back.run_id == "run-1" and back.results_root == tmp_path
