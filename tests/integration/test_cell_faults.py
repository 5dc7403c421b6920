"""Faults around a docker cell, for real: a detached process inside the container, an environment
whose image build fails beside one that runs, and the Docker engine going away mid-run (a second
dockerd on its own socket and data root, never the engine the other tests use)."""
from __future__ import annotations

import json
import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from enginekit import SecondEngine, can_start_engines, lose_engine_mid_run
from helpers import DETACHING, broken_pin, harness_cli, processes_with

from harness.definitions import config

BASE = config.mirrored("python:3.11-slim-bookworm")  # any image with Python: a plain script needs no framework


def records(results: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in results.glob("*/*/*.json") if p.parent.name != "logs"]


def test_a_detached_process_in_the_container_is_named_and_killed(docker_client: Any, tmp_path: Path) -> None:
    marker = f"harness-detached-{uuid.uuid4().hex}"
    script = tmp_path / "detaching.py"
    script.write_text(DETACHING.format(close=False, marker=marker))
    began = time.monotonic()
    result = harness_cli("repro", str(script), "--image", BASE, "--timeout", "30", "--results", str(tmp_path / "r"))
    took = time.monotonic() - began
    assert result.returncode == 0, result.stderr[-2000:]
    (record,) = records(tmp_path / "r")
    assert record["status"] == "ok" and took < 30 and not processes_with(marker)
    (killed,) = record["killed"]
    assert marker in killed["command"] and f"PID {killed['pid']} (started by the script)" in result.stdout


def test_an_environment_whose_build_fails_beside_one_that_runs(docker_client: Any, tmp_path: Path) -> None:
    script = tmp_path / "plain.py"
    script.write_text("block = bytearray(1 << 20)\ndel block\n")
    result = harness_cli("repro", str(script), "--interpreter", sys.executable, *broken_pin(tmp_path),
                         "--results", str(tmp_path / "r"), timeout=600)
    assert result.returncode == 4, result.stderr[-2000:]
    statuses = {r["env"]["name"]: r["status"] for r in records(tmp_path / "r")}
    assert statuses.pop("torch==0.0.1") == "harness-error" and list(statuses.values()) == ["ok"]
    (repro_md,) = (tmp_path / "r").glob("*/repro.md")
    text = repro_md.read_text()
    assert "Not every environment asked for ran: `torch==0.0.1`" in text  # also in the block printed for the thread
    assert "**torch==0.0.1** did not run: it could not be built or started: building" in text
    assert "is invalid" in text.split("**torch==0.0.1** did not run")[1]  # the build log's own last lines
    assert text in result.stdout


@pytest.fixture
def second_engine(docker_client: Any) -> Iterator[SecondEngine]:
    why_not = can_start_engines()
    if why_not:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {why_not}")
        pytest.skip(why_not)
    engine = SecondEngine(BASE)
    try:
        engine.open("harness-b:1", "harness-c:1")
        yield engine
    finally:
        engine.close()


def test_a_lost_engine_cuts_the_run_and_resume_finishes_it(second_engine: SecondEngine, tmp_path: Path) -> None:
    run = lose_engine_mid_run(second_engine, tmp_path)
    assert run.exit_code in (3, 4)  # non-zero: nothing ran to its end
    assert run.took_s < 60, f"the run took {run.took_s:.0f} s after its engine died"
    assert not run.alive_after, "a process of a cut cell outlived the run"
    assert len(run.cut) == 3 and {r["status"] for r in run.cut} == {"harness-error"}
    assert {r["error"]["type"] for r in run.cut} == {"EngineLost"}  # never 'crashed', never the script's
    assert "stopped answering" in run.last_line and "3 cell(s)" in run.last_line
    assert f"--resume {run.run_dir}" in run.last_line
    assert run.resumed_exit == 0 and run.resumed == ["ok", "ok", "ok"]
