"""A release older than what its scenario uses answers unsupported: torch 1.4.0 has no expandable_segments,
so its cell of torch/expandable_segments measured the default allocator (H200 run, 2026-11-27: "released")."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.common.errors import UsageError
from harness.common.meta import SCENARIOS_DIR
from harness.judgement import since, verdicts
from harness.measurement import scenario


def _record(torch: str | None, env: str = "torch==1.4.0", name: str = "torch/expandable_segments",
            status: str = "ok") -> dict[str, Any]:
    return {"status": status, "scenario": {"name": name}, "env": {"name": env},
            "facts": {"frameworks": {"torch": torch} if torch else {}}, "checkpoints": []}


def test_a_release_before_the_scenarios_since_is_unsupported_with_why() -> None:
    said = since.predates(_record("1.4.0"))  # type: ignore[arg-type]
    assert said == ("PYTORCH_CUDA_ALLOC_CONF's expandable_segments came with torch 2.1: torch 1.4.0 does not have "
                    "it, so the cell measured the framework without it, not an answer of the release")
    judged = verdicts.judge(_record("1.4.0"))  # type: ignore[arg-type]
    assert judged["status"] == "unsupported" and judged["unsupported_reason"] == said


def test_an_api_the_release_lacks_is_named_not_its_attribute_error() -> None:
    """torch 1.3.1 on an H100 (2026-11-27): memory_fraction stopped at AttributeError; the why names the API."""
    record = _record("1.3.1", env="torch==1.3.1", name="torch/memory_fraction", status="unsupported")
    record["error"] = "AttributeError: module 'torch.cuda' has no attribute 'set_per_process_memory_fraction'"
    judged = verdicts.judge(record)  # type: ignore[arg-type]
    assert judged["status"] == "unsupported"
    assert judged["unsupported_reason"] == (
        "torch.cuda.set_per_process_memory_fraction came with torch 1.8: torch 1.3.1 does not have it, so the cell "
        "is not an answer of the release")
    assert since.predates(_record("1.8.0", env="torch==1.8.0", name="torch/memory_fraction")) is None


def test_the_first_release_and_later_ones_answer() -> None:
    for release in ("2.1.0", "2.1.2", "2.11.0+cu130", "2.2.0a0+git1234"):
        assert since.predates(_record(release)) is None, release  # type: ignore[arg-type]
    assert since.predates(_record(None, env="torch==2.0.1")) is not None  # the pin where torch was not imported
    assert since.predates(_record(None, env="python")) is None  # no version known: judged as measured
    assert since.predates(_record("1.4.0", name="torch/del_gc_empty_cache")) is None  # its scenario names none
    assert since.predates(_record("not-a-version")) is None


def test_a_malformed_since_is_refused_where_the_scenario_is_read(tmp_path: Path) -> None:
    """One line naming the file and the shape, where the judge would otherwise fail unpacking it later."""
    for bad in ('{"torch": "2.1"}', '{"torch": ["two", "x"]}', '["2.1", "x"]', '{"torch": ["2.1"]}'):
        path = tmp_path / "bad.py"
        path.write_text(f'META = {{"families": ["torch"], "since": {bad}}}\n')
        with pytest.raises(UsageError, match=r"bad\.py: META since must map a framework to \[its first release"):
            scenario.load(path)
    path = tmp_path / "good.py"
    path.write_text('META = {"families": ["torch"], "since": {"torch": ["2.1", "expandable_segments"]}}\n')
    assert scenario.load(path).name == "good"
    assert scenario.load(SCENARIOS_DIR / "torch" / "expandable_segments.py").name == "torch/expandable_segments"
