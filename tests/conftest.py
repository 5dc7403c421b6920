"""Shared test helpers: run a scenario file for real through the process backend.

The tests build and use images under their own name (TEST_IMAGE_PREFIX), never the user's
gpu-cleanup-matrix/* images, and remove those the session built as it ends (unless
HARNESS_KEEP_TEST_IMAGES=1: a developer running them again keeps the builds); images already
there when it began (CI's set-up builds them first) stay, and a session that ran no Docker test
(the unit tests) removes nothing: what appeared meanwhile is a session beside it at work.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import SCENARIOS, TEST_IMAGE_PREFIX

os.environ.setdefault("HARNESS_IMAGE_PREFIX", TEST_IMAGE_PREFIX)  # CLI subprocesses inherit it


def _test_images() -> tuple[object, set[str]]:
    """(client, tags under the test prefix, registry copies included); (None, set()) without an engine."""
    try:
        from harness.environments.docker_client import connect

        client = connect(timeout=120)
    except Exception:
        return None, set()
    prefix = os.environ["HARNESS_IMAGE_PREFIX"]
    return client, {tag for image in client.images.list() for tag in image.tags if f"{prefix}/" in tag}


_before: set[str] = set()


def pytest_sessionstart(session: pytest.Session) -> None:
    _before.update(_test_images()[1])  # built before this session (CI's set-up, a session at work beside it): kept


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The images this session built under the test prefix go: nothing of the tests stays."""
    if os.environ["HARNESS_IMAGE_PREFIX"] != TEST_IMAGE_PREFIX or os.environ.get("HARNESS_KEEP_TEST_IMAGES") == "1":
        return
    if not any("integration/" in item.nodeid for item in getattr(session, "items", [])):
        return  # it built nothing: the images new since it began are another session's at work beside it
    client, now = _test_images()
    for tag in sorted(now - _before):
        try:
            client.images.remove(tag)  # type: ignore[attr-defined]
        except Exception:
            pass  # in use by a container another session left: `harness clean`, then docker image prune


@pytest.fixture
def run_scenario(tmp_path: Path):
    """Run a test scenario through the process backend; return its judged record."""
    from harness.measurement import scenario
    from harness.measurement.backends.process import ProcessBackend
    from harness.measurement.nvml import Nvml
    from harness.measurement.runner import CellOptions, run_cell
    from harness.store import results

    def run(name: str, *, timeout: float | None = None, params: dict[str, Any] | None = None) -> dict[str, Any]:
        spec = scenario.load(SCENARIOS / f"{name}.py")
        options = CellOptions(run_id="test", run_dir=tmp_path, env_name="local", env_facts={},
                              params=params or {}, timeout=timeout)
        nvml = Nvml.open()
        try:
            record = run_cell(ProcessBackend(python=sys.executable), spec, options, nvml)
        finally:
            nvml.close()
        results.write_record(tmp_path, record)
        return record

    return run
